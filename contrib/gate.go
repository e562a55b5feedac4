package contrib

import (
	"context"
	"sync"
)

// Gate admits calls into one generation and lets the lifecycle close
// admission, wait for running work to drain and, past the cleanup timeout,
// cancel it (DC12, DC26). The zero
// Gate is not usable; call NewGate. A Gate is safe for concurrent use.
type Gate struct {
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	active int
	idle   chan struct{} // closed once closed && active == 0
	// calls holds the cancel function of each admitted call, by admission
	// number: Cancel cancels them itself, so a call costs no callback
	// registered on (and contended for in) the gate's context.
	calls map[uint64]context.CancelFunc
	seq   uint64
}

// NewGate returns an open gate.
func NewGate() *Gate {
	ctx, cancel := context.WithCancel(context.Background())
	return &Gate{ctx: ctx, cancel: cancel, idle: make(chan struct{}), calls: map[uint64]context.CancelFunc{}}
}

// Context is cancelled by Cancel: work of the generation that outlives
// admission and the cleanup timeout (timers, long calls) watches it.
func (g *Gate) Context() context.Context { return g.ctx }

// enter admits one call; it reports false once the gate is closed. Every
// successful Enter must be paired with Leave.
func (g *Gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.active++
	return true
}

// leave ends a call admitted by Enter.
func (g *Gate) leave() {
	g.mu.Lock()
	g.active--
	if g.closed && g.active == 0 {
		close(g.idle)
	}
	g.mu.Unlock()
}

// admit is enter for Call: it also records cancel, which Cancel calls
// while the call runs. It returns the call's number, for dismiss.
func (g *Gate) admit(cancel context.CancelFunc) (uint64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return 0, false
	}
	g.active++
	g.seq++
	g.calls[g.seq] = cancel
	return g.seq, true
}

// dismiss is leave for a call admitted by admit.
func (g *Gate) dismiss(id uint64) {
	g.mu.Lock()
	delete(g.calls, id)
	g.active--
	if g.closed && g.active == 0 {
		close(g.idle)
	}
	g.mu.Unlock()
}

// Do runs fn as one admitted call whose context is cancelled when either ctx
// ends or the gate is cancelled. It reports false, without running fn, when the
// gate is closed or ctx has already ended.
func (g *Gate) Do(ctx context.Context, fn func(context.Context)) bool {
	ran, _ := g.Call(ctx, fn)
	return ran
}

// Call is Do that also reports whether the gate was cancelled while fn ran
// (its generation retired past the cleanup timeout, DC26), which a caller
// tells apart from its own context ending.
func (g *Gate) Call(ctx context.Context, fn func(context.Context)) (ran, interrupted bool) {
	if ctx.Err() != nil {
		return false, false // a caller that already gave up runs no plugin code
	}
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	id, ok := g.admit(cancel)
	if !ok {
		return false, false
	}
	defer g.dismiss(id)
	fn(callCtx)
	// Before dismiss: a drain that finished normally cancels the gate only
	// after every call left, so this sees only a cancellation mid-call.
	interrupted = g.ctx.Err() != nil
	return true, interrupted
}

// Close closes admission; calls already admitted keep running on their
// generation (DC12). It is idempotent.
func (g *Gate) Close() {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		if g.active == 0 {
			close(g.idle)
		}
	}
	g.mu.Unlock()
}

// Cancel closes admission and cancels the gate's context, asking running
// work to stop (DC26: after the cleanup timeout). It is idempotent.
func (g *Gate) Cancel() {
	g.Close()
	g.cancel() // first: a call cancelled below sees it was interrupted
	g.mu.Lock()
	cancels := make([]context.CancelFunc, 0, len(g.calls))
	for _, cancel := range g.calls {
		cancels = append(cancels, cancel)
	}
	g.mu.Unlock()
	for _, cancel := range cancels {
		cancel()
	}
}

// cancelled reports whether Cancel was called.
func (g *Gate) cancelled() bool { return g.ctx.Err() != nil }

// Drained is closed once the gate is closed and no admitted call is running.
func (g *Gate) Drained() <-chan struct{} { return g.idle }

// inFlight returns the number of admitted calls still running.
func (g *Gate) inFlight() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.active
}
