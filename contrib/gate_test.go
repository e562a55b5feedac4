package contrib

import (
	"context"
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
