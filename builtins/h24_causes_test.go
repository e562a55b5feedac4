package builtins

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/crystal-star/crystal-star/contrib"
)

// gatedClient answers once released, like a slow model call: a run blocked
// in it executes no Starlark and allocates nothing.
type gatedClient struct{ started, release chan struct{} }

func (c gatedClient) Complete(ctx context.Context, _ contrib.ModelRequest) (contrib.ModelReply, error) {
	close(c.started)
	select {
	case <-c.release:
	case <-ctx.Done():
	}
	return contrib.ModelReply{Text: "late"}, nil
}

// TestH24_10_InnocentRunIsCollateral: a run of one plugin grows the heap
// the host process shares while a run of another plugin waits on a model.
// The heap watchdog cancels both, but blames only the one it saw growing
// the heap (memory_limit at its line) — through the allocation guards, or,
// when they saw nothing, as the one run not waiting in a host call; the
// other is collateral, and its result points at none of its code.
func TestH24_10_InnocentRunIsCollateral(t *testing.T) {
	for name, grow := range map[string]string{
		"guarded growth":   `l.append("x" * 4096)`,
		"unguarded growth": `l.append({"i": i, "s": str(i)})`,
	} {
		t.Run(name, func(t *testing.T) { collateral(t, grow) })
	}
}

func collateral(t *testing.T, grow string) {
	c := gatedClient{started: make(chan struct{}), release: make(chan struct{})}
	host := &fakeHost{session: &ModelFacts{Provider: "p", Model: "m"}, client: c}
	act := NewActivator(Options{MemoryLimit: 32 << 20})
	start := func(plugin, src string, caps ...string) contrib.Tool {
		inst, err := act.Activate(context.Background(), contrib.ActivationRequest{Plugin: plugin, Generation: "g1",
			Source: contrib.SourceDev, Bundle: fstest.MapFS{"plugin.star": {Data: []byte(src)}}, Entry: "plugin.star",
			Services: host, Capabilities: caps})
		if err != nil {
			t.Fatal(err)
		}
		return inst.Set().Tools[0]
	}
	innocent := start("acme.waits", `def wait(ctx, args):
    reply = ctx.models.session.complete("hi")
    return "answered " + reply

contribute(tools = [tool(name = "wait", catalogs = "work", run = wait)])
`, "models")
	culprit := start("acme.grows", `def grow(ctx, args):
    l = []
    for i in range(10000000):
        `+grow+`
    return str(len(l))

contribute(tools = [tool(name = "grow", catalogs = "work", run = grow)])
`)
	runtime.GC() // both runs are judged from the same live heap
	done := make(chan contrib.Result)
	go func() { done <- innocent.Run.Run(context.Background(), map[string]any{}) }()
	<-c.started
	grown := culprit.Run.Run(context.Background(), map[string]any{})
	close(c.release)
	waited := <-done

	if grown.Err == nil || grown.Err.Cause != contrib.CauseMemoryLimit || !strings.HasPrefix(grown.Err.Message, "memory_limit 32MiB exceeded at plugin.star:") {
		t.Errorf("the growing run: %+v; want cause memory_limit at its own line", grown.Err)
	}
	if waited.Err == nil || waited.Err.Code != contrib.ErrToolFailed || waited.Err.Cause != contrib.CauseCollateral ||
		strings.Contains(waited.Err.Message, "plugin.star") {
		t.Errorf("the waiting run: %+v; want tool_failed, cause collateral, no position of its own", waited.Err)
	}
}

// TestH24_10_BlameNamesOneCulprit: the watchdog's judgement, case by case.
func TestH24_10_BlameNamesOneCulprit(t *testing.T) {
	run := func(allocated uint64) watched {
		st := &runState{}
		st.allocated.Store(allocated)
		return watched{st: st, limit: 100, based: true}
	}
	alone, a, b, c := run(0), run(50), run(10), run(0)
	seen := map[*runState]uint64{b.st: 10}
	waits, under := run(0), run(80)
	waits.st.waiting.Store(1)
	under.base = 1000 // started after the growth: within its budget
	for _, tc := range []struct {
		name  string
		batch []watched
		want  *runState
	}{
		{"a run alone grew the heap itself", []watched{alone}, alone.st},
		{"of several, the one seen allocating", []watched{a, c}, a.st},
		{"allocations before the last tick do not count", []watched{b, c}, nil},
		{"nobody seen allocating: nobody blamed", []watched{c, run(0)}, nil},
		{"nobody seen allocating: the one run not waiting", []watched{c, waits}, c.st},
		{"the grower within its budget: nobody over is blamed", []watched{a, under}, nil},
	} {
		if got := blame(tc.batch, 200, seen); got != tc.want {
			t.Errorf("%s: blamed %p, want %p", tc.name, got, tc.want)
		}
	}
}

// TestH24_10_CausesOfOwnFailures: a run stopped for its own doing says
// which limit it hit, as a cause beside the message.
func TestH24_10_CausesOfOwnFailures(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		opts       Options
		cause      string
	}{
		{"step budget", "    n = 0\n    while True:\n        n += 1", Options{Steps: 1000}, contrib.CauseStepBudget},
		{"refused allocation", "    return str(len([0] * 1000000000))", Options{}, contrib.CauseMemoryLimit},
		{"callback timeout", "    n = 0\n    while True:\n        n += 1", Options{Steps: 1 << 62, CallbackTimeout: 20e6}, contrib.CauseCallbackTimeout},
		{"uncaught error: the tool's own", "    fail('x')", Options{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "def run(ctx, args):\n" + tc.body + "\ncontribute(tools = [tool(name = \"t\", catalogs = \"work\", run = run)])\n"
			res, _ := runTool(t, tc.opts, src)
			if res.Err == nil || res.Err.Code != contrib.ErrToolFailed || res.Err.Cause != tc.cause {
				t.Errorf("result %+v; want tool_failed with cause %q", res.Err, tc.cause)
			}
		})
	}
}
