package builtins

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/crystal-star/crystal-star/contrib"
)

// parkedClient answers each call once released; started says a call began.
type parkedClient struct{ started, release chan struct{} }

func (c parkedClient) Complete(ctx context.Context, _ contrib.ModelRequest) (contrib.ModelReply, error) {
	c.started <- struct{}{}
	select {
	case <-c.release:
	case <-ctx.Done():
	}
	return contrib.ModelReply{Text: "late"}, nil
}

// TestH24_10_RepeatCreditsItsOwnRun: two runs of one generation are in
// progress; one repeats a string in a loop (`*`), the other waits. The
// guard of `*` credits what it allows to the run that asked, so only the
// allocating run carries the watchdog's evidence (runState.allocated).
// Crediting every run of the generation, as an operator without a thread
// once did, would give the idle run the same evidence and let the
// watchdog blame it.
func TestH24_10_RepeatCreditsItsOwnRun(t *testing.T) {
	c := parkedClient{started: make(chan struct{}, 2), release: make(chan struct{})}
	host := &fakeHost{session: &ModelFacts{Provider: "p", Model: "m"}, client: c}
	act := NewActivator(Options{MemoryLimit: 1 << 30})
	ci, err := act.Activate(context.Background(), contrib.ActivationRequest{Plugin: "acme.two", Generation: "g1",
		Source: contrib.SourceDev, Bundle: fstest.MapFS{"plugin.star": {Data: []byte(`def idle(ctx, args):
    return ctx.models.session.complete("hi")

def grow(ctx, args):
    n = 0
    for i in range(1000):
        n += len("x" * 4096)
    return ctx.models.session.complete(str(n))

contribute(tools = [
    tool(name = "idle", catalogs = "work", run = idle),
    tool(name = "grow", catalogs = "work", run = grow),
])
`)}}, Entry: "plugin.star", Services: host, Capabilities: []string{"models"}})
	if err != nil {
		t.Fatal(err)
	}
	inst := ci.(*instance)
	tools := map[string]contrib.Tool{}
	for _, tl := range inst.Set().Tools {
		tools[tl.Name] = tl
	}
	done := make(chan contrib.Result, 2)
	call := func(name string) {
		go func() { done <- tools[name].Run.Run(context.Background(), map[string]any{}) }()
		<-c.started // the run is in progress, parked in its model call
	}
	call("idle")
	call("grow")

	var allocated []uint64
	watchdog.mu.Lock()
	for st := range watchdog.running {
		if st.owner == inst {
			allocated = append(allocated, st.allocated.Load())
		}
	}
	watchdog.mu.Unlock()
	close(c.release)
	for range 2 {
		if r := <-done; r.Err != nil {
			t.Fatalf("a run failed: %+v", r.Err)
		}
	}

	if len(allocated) != 2 {
		t.Fatalf("%d runs of the generation in progress, want 2", len(allocated))
	}
	lo, hi := min(allocated[0], allocated[1]), max(allocated[0], allocated[1])
	if lo != 0 || hi < 1000*4096 {
		t.Errorf("evidence of the two runs: %d and %d bytes; want 0 for the idle run and at least %d for the repeating one", lo, hi, 1000*4096)
	}
}
