package contrib

import (
	"context"
	"errors"
	"testing"
	"time"
)

func closedWithin(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// TestDC26_GateDrainsAndRefuses: Close refuses new calls and lets running
// ones finish (DC12); Cancel asks them to stop; Drained closes when the last
// call leaves.
func TestDC26_GateDrainsAndRefuses(t *testing.T) {
	g := NewGate()
	entered := make(chan struct{})
	release := make(chan struct{})
	callCancelled := make(chan struct{})
	done := make(chan bool)
	go func() {
		done <- g.Do(context.Background(), func(ctx context.Context) {
			close(entered)
			<-ctx.Done() // Cancel cancels the running call
			close(callCancelled)
			<-release // but it leaves only when it chooses to
		})
	}()
	<-entered
	if g.inFlight() != 1 {
		t.Fatalf("Active = %d, want 1", g.inFlight())
	}
	if closedWithin(g.Drained(), 10*time.Millisecond) {
		t.Fatal("Drained closed while the gate is open")
	}

	g.Close()
	g.Close() // idempotent
	// Close only closes admission: the running call keeps its context (DC12).
	if closedWithin(callCancelled, 20*time.Millisecond) || g.cancelled() {
		t.Fatal("Close cancelled the running call")
	}
	g.Cancel()
	if !closedWithin(g.Context().Done(), time.Second) || !g.cancelled() {
		t.Fatal("gate Context not cancelled by Cancel")
	}
	if !closedWithin(callCancelled, time.Second) {
		t.Fatal("the running call's context was not cancelled by Cancel")
	}
	ran := false
	if g.Do(context.Background(), func(context.Context) { ran = true }) || ran {
		t.Fatal("Do admitted a call after Close")
	}
	if g.enter() {
		t.Fatal("Enter admitted a call after Close")
	}
	if closedWithin(g.Drained(), 10*time.Millisecond) {
		t.Fatal("Drained closed while a call is still running")
	}

	close(release)
	if !<-done {
		t.Error("the admitted Do reported false")
	}
	if !closedWithin(g.Drained(), time.Second) {
		t.Fatal("Drained did not close when the last call left")
	}
	if g.inFlight() != 0 {
		t.Errorf("Active = %d, want 0", g.inFlight())
	}
}

func TestDC26_IdleGateDrainsOnClose(t *testing.T) {
	g := NewGate()
	if !g.Do(context.Background(), func(context.Context) {}) {
		t.Fatal("open gate refused a call")
	}
	g.Close()
	if !closedWithin(g.Drained(), time.Second) {
		t.Fatal("an idle gate did not drain on Close")
	}
}

func TestDC26_CallerCancellationReachesTheCall(t *testing.T) {
	g := NewGate()
	ctx, cancel := context.WithCancel(context.Background())
	if g.Do(ctx, func(context.Context) {}) != true {
		t.Fatal("open gate refused a live caller")
	}
	var err error
	g.Do(ctx, func(ctx context.Context) { cancel(); err = ctx.Err() })
	if err == nil {
		t.Error("a cancelled caller context did not reach the call")
	}
	if g.Do(ctx, func(context.Context) { t.Error("ran for a caller that had already given up") }) {
		t.Error("Do reported a call for a done context")
	}
	if g.Context().Err() != nil {
		t.Error("a caller's cancellation cancelled the gate")
	}
}

type gateTestKey struct{}

// TestH26_4_GateCallContextIsLazy: an admitted call's context costs one
// allocation and no entry in the gate's calls until something asks for
// Done (it was a context.WithCancel, its cancel function and a map entry
// per call); it still ends as the cancellable context did — with the
// gate's cancellation, its caller's context and its own return — whether
// Done was asked before, after or never, and contexts made from it follow.
func TestH26_4_GateCallContextIsLazy(t *testing.T) {
	g := NewGate()
	parent := context.WithValue(context.Background(), gateTestKey{}, "v")
	if n := testing.AllocsPerRun(100, func() {
		g.Call(parent, func(ctx context.Context) {
			if ctx.Err() != nil || ctx.Value(gateTestKey{}) != "v" {
				t.Fatal("a running call's context ended or lost its values")
			}
			if len(g.calls) != 0 {
				t.Fatal("a call that never asked for Done is tracked")
			}
		})
	}); n > 1 {
		t.Errorf("an admitted call allocates %.0f times; want 1", n)
	}

	// Returned: a context kept past its call has ended.
	var kept context.Context
	g.Call(parent, func(ctx context.Context) { kept = ctx })
	if kept.Err() != context.Canceled || !closedWithin(kept.Done(), time.Second) {
		t.Errorf("a call's context after the call: Err %v, Done not closed", kept.Err())
	}
	g.Call(parent, func(ctx context.Context) { _ = ctx.Done(); kept = ctx })
	if kept.Err() != context.Canceled || !closedWithin(kept.Done(), time.Second) || len(g.calls) != 0 {
		t.Errorf("a call's context after the call: Err %v, %d calls tracked", kept.Err(), len(g.calls))
	}

	// The caller's context ends: the call's context says so, with its cause.
	caller, cancelCaller := context.WithCancelCause(parent)
	errGone := errors.New("caller gone")
	g.Call(caller, func(ctx context.Context) {
		child, stop := context.WithCancel(ctx)
		defer stop()
		cancelCaller(errGone)
		if !closedWithin(child.Done(), time.Second) || ctx.Err() != context.Canceled || context.Cause(ctx) != errGone {
			t.Errorf("caller cancelled: Err %v, cause %v", ctx.Err(), context.Cause(ctx))
		}
	})

	// The gate is cancelled while calls run: one that asked for Done before,
	// one after, one never.
	g2 := NewGate()
	var before, after, never context.Context
	g2.Call(parent, func(ctx context.Context) {
		before = ctx
		done := ctx.Done()
		g2.Call(parent, func(ctx context.Context) {
			g2.Call(parent, func(ctx context.Context) {
				never = ctx
				g2.Cancel()
				if ctx.Err() != context.Canceled || context.Cause(ctx) != context.Canceled {
					t.Errorf("never asked: Err %v, cause %v", ctx.Err(), context.Cause(ctx))
				}
			})
			after = ctx
			if !closedWithin(ctx.Done(), time.Second) {
				t.Error("asked after the gate's cancellation: Done not closed")
			}
		})
		if !closedWithin(done, time.Second) || before.Err() != context.Canceled {
			t.Errorf("asked before the gate's cancellation: Err %v", before.Err())
		}
	})
	for _, ctx := range []context.Context{before, after, never} {
		if ctx.Err() == nil {
			t.Error("a call's context outlived the gate's cancellation")
		}
	}
	if len(g2.calls) != 0 {
		t.Errorf("%d calls still tracked after all left", len(g2.calls))
	}
}

// TestH26_4_GateCallCarriesTheSession: a call admitted for a session
// (ToolSnapshot.InvokeIn) has it on its context, and so do the contexts
// made from it once Done was asked, with no context of its own made for
// it.
func TestH26_4_GateCallCarriesTheSession(t *testing.T) {
	g := NewGate()
	scope := &FactsSession{F: Facts{SessionID: "s1"}}
	parent := context.WithValue(context.Background(), gateTestKey{}, "v")
	if n := testing.AllocsPerRun(100, func() {
		g.call(parent, scope, func(ctx context.Context) {
			if SessionFrom(ctx) != scope || ctx.Value(gateTestKey{}) != "v" {
				t.Fatal("the call's context lost the session or a value")
			}
		})
	}); n > 1 {
		t.Errorf("a call for a session allocates %.0f times; want 1", n)
	}
	g.call(parent, scope, func(ctx context.Context) {
		_ = ctx.Done()
		child, stop := context.WithCancel(ctx)
		defer stop()
		if SessionFrom(ctx) != scope || SessionFrom(child) != scope || child.Value(gateTestKey{}) != "v" {
			t.Error("after Done, the call's context or its child lost the session or a value")
		}
	})
	g.Call(parent, func(ctx context.Context) {
		if SessionFrom(ctx) != nil {
			t.Error("a call for no session serves one")
		}
	})
}
