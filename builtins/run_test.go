package builtins

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// noteLog is the Services of a test activation: it records every note.
type noteLog = testkit.Services[contrib.Diagnostic, contrib.Facts]

func request(src string, log *noteLog) contrib.ActivationRequest {
	return contrib.ActivationRequest{
		Plugin: "acme.test", Generation: "g1", Source: contrib.SourceDev,
		Bundle: fstest.MapFS{"plugin.star": {Data: []byte(src)}}, Entry: "plugin.star",
		Services: log,
	}
}

// AT2: a run over its step budget is cancelled with TooManySteps at the
// statement the loop was running, whatever instruction the budget ran out
// on — not at the def line a loop's backward jump reports.
func TestAT2_TooManyStepsPointsIntoTheLoop(t *testing.T) {
	const src = `def forever():
    n = 0
    while True:
        n += 1

forever()
contribute()
`
	for steps := uint64(10_000); steps < 10_010; steps++ {
		_, err := NewActivator(Options{Steps: steps}).Activate(context.Background(), request(src, &noteLog{}))
		var ae *contrib.ActivationError
		if !errors.As(err, &ae) || len(ae.Diagnostics) != 1 {
			t.Fatalf("steps %d: err = %v, want one diagnostic", steps, err)
		}
		d := ae.Diagnostics[0]
		if d.Code != contrib.TooManySteps || d.Pos.Line != 4 {
			t.Errorf("steps %d: %s; want TooManySteps at line 4", steps, d)
		}
	}
}

// CC11, CC13: a command or resolve that returns the wrong type fails with a
// diagnostic of its plugin at the constructor call.
func TestCC13_WrongReturnTypeIsPositioned(t *testing.T) {
	const src = `contribute(
    commands = [command(name = "c", run = lambda ctx, inv: 1)],
    placeholders = [placeholder(name = "p", resolve = lambda ctx: [])],
)
`
	log := &noteLog{}
	inst, err := NewActivator(Options{}).Activate(context.Background(), request(src, log))
	if err != nil {
		t.Fatal(err)
	}
	set := inst.Set()
	_, _, cerr := set.Commands[0].Run(context.Background(), contrib.Invocation{Name: "c"})
	_, _, perr := set.Placeholders[0].Resolve(context.Background(), contrib.SitePrompt)
	for i, err := range []error{cerr, perr} {
		d := FailureDiagnostic(err)
		want := contrib.Pos{File: "plugin.star", Line: 2 + i, Col: []int{24, 32}[i]}
		if d.Code != contrib.CallbackFailed || d.Plugin != "acme.test" || d.Pos != want {
			t.Errorf("diagnostic %d = %s (at %v); want CallbackFailed of acme.test at %v", i, d, d.Pos, want)
		}
	}
}
