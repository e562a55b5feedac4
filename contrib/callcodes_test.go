package contrib

import (
	"context"
	"sync/atomic"
	"testing"
)

// blockingTool blocks until its context ends, then fails as a tool that
// noticed would; entered is closed once it runs.
func blockingTool(entered chan struct{}) Tool {
	return Tool{Name: "wait", Catalogs: Work, Run: ToolFunc(func(ctx context.Context, _ any) Result {
		close(entered)
		<-ctx.Done()
		return Failure(ErrToolFailed, "stopped")
	})}
}

// TestDC26_CallCodesTellWhatHappened: a host can tell a call that never
// started (tool_unavailable), one whose caller gave up (cancelled, before or
// during), and a started one stopped because its generation retired past
// the cleanup timeout (tool_interrupted, which may have had effects).
func TestDC26_CallCodesTellWhatHappened(t *testing.T) {
	var runs atomic.Int32
	counting := Tool{Name: "count", Catalogs: Work, Run: ToolFunc(func(context.Context, any) Result {
		runs.Add(1)
		return Result{Text: "ran"}
	})}

	// Cancelled before: nothing runs.
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme", counting))
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if res := r.Tools(Work).Invoke(done, "count", nil); res.Err == nil || res.Err.Code != ErrCancelled || runs.Load() != 0 {
		t.Errorf("done context: %+v after %d runs, want cancelled and no run", res, runs.Load())
	}

	// Cancelled during.
	entered := make(chan struct{})
	r = NewRegistry(RegistryOptions{})
	publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme", blockingTool(entered)))
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan Result)
	go func() { out <- r.Tools(Work).Invoke(ctx, "wait", nil) }()
	<-entered
	cancel()
	if res := <-out; res.Err == nil || res.Err.Code != ErrCancelled {
		t.Errorf("caller cancelled during the call: %+v, want cancelled", res)
	}

	// Interrupted: the generation retired past the cleanup timeout.
	entered = make(chan struct{})
	r = NewRegistry(RegistryOptions{})
	p := publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme", blockingTool(entered)))
	go func() { out <- r.Tools(Work).Invoke(context.Background(), "wait", nil) }()
	<-entered
	r.Revoke("acme", "g1")
	p.Gate.Cancel()
	if res := <-out; res.Err == nil || res.Err.Code != ErrToolInterrupted {
		t.Errorf("generation retired mid-call: %+v, want tool_interrupted", res)
	}

	// Never started: the generation is gone.
	if res := r.Tools(Work).Invoke(context.Background(), "wait", nil); res.Err == nil || res.Err.Code != ErrUnknownTool {
		t.Errorf("after revoke, a new snapshot: %+v, want unknown_tool", res)
	}
	old := NewRegistry(RegistryOptions{})
	publish(old, "acme", "g1", 0, SourceDev, stage(t, "acme", counting))
	snap := old.Tools(Work)
	old.Revoke("acme", "g1")
	if res := snap.Invoke(context.Background(), "count", nil); res.Err == nil || res.Err.Code != ErrToolUnavailable {
		t.Errorf("old snapshot of a stopped plugin: %+v, want tool_unavailable", res)
	}
}

// TestDC4_NullArgumentsAreTheEmptyObject: one rule for missing arguments.
func TestDC4_NullArgumentsAreTheEmptyObject(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme", okTool("echo")))
	for _, raw := range []string{"", "  ", "null", " null\n", "{}"} {
		if res := r.Tools(Work).Invoke(context.Background(), "echo", []byte(raw)); !res.OK() {
			t.Errorf("arguments %q: %+v, want {}", raw, res)
		}
	}
	if res := r.Tools(Work).Invoke(context.Background(), "echo", []byte("[]")); res.OK() {
		t.Error("an array was accepted as the arguments object")
	}
}
