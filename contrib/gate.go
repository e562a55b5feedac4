package contrib

import (
	"context"
	"sync"
	"sync/atomic"
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
	// calls holds the cancel function of each running call that made the
	// cancellable context behind its Done (callContext), by number: Cancel
	// cancels them itself, so a call costs no callback registered on (and
	// contended for in) the gate's context.
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

// track records cancel, which Cancel calls while its call runs, and
// returns its number for untrack. A gate cancelled already cancels it at
// once: Cancel cancels the gate's context before it reads calls.
func (g *Gate) track(cancel context.CancelFunc) uint64 {
	g.mu.Lock()
	g.seq++
	id := g.seq
	g.calls[id] = cancel
	g.mu.Unlock()
	if g.ctx.Err() != nil {
		cancel()
	}
	return id
}

// untrack forgets the cancel function recorded as id.
func (g *Gate) untrack(id uint64) {
	g.mu.Lock()
	delete(g.calls, id)
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
	return g.call(ctx, nil, fn)
}

// call is Call whose context also carries session, when not nil, as
// WithSession would.
func (g *Gate) call(ctx context.Context, session SessionScope, fn func(context.Context)) (ran, interrupted bool) {
	if ctx.Err() != nil {
		return false, false // a caller that already gave up runs no plugin code
	}
	if !g.enter() {
		return false, false
	}
	c := &callContext{Context: ctx, g: g, session: session}
	defer g.leave()
	defer c.end()
	fn(c)
	// Before leave: a drain that finished normally cancels the gate only
	// after every call left, so this sees only a cancellation mid-call.
	interrupted = g.ctx.Err() != nil
	return true, interrupted
}

// callContext is the context of one admitted call: the caller's values and
// deadline, done when the caller's context ends, when the gate is cancelled
// or when the call returns. It costs the call one allocation: the
// cancellable context behind Done is made only when something asks for
// Done (a model call's HTTP request, a worker's channel). An in-process
// run reads only Err — the watchdog watches it on its tick — so a trivial
// tool call makes no context, no cancel function and no entry in the
// gate's calls (issue 26, point 4).
type callContext struct {
	context.Context // the caller's
	g               *Gate
	session         SessionScope // served by the call, unless nil (Gate.call)
	ended           atomic.Bool
	mu              sync.Mutex // guards making derived
	derived         atomic.Pointer[derivedContext]
}

// derivedContext is the cancellable context a callContext made for Done,
// with its number in the gate's calls.
type derivedContext struct {
	ctx    context.Context
	cancel context.CancelFunc
	id     uint64
}

func (c *callContext) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if c.ended.Load() || c.g.ctx.Err() != nil {
		return context.Canceled
	}
	return nil
}

func (c *callContext) Done() <-chan struct{} {
	if d := c.derived.Load(); d != nil {
		return d.ctx.Done()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.derived.Load(); d != nil {
		return d.ctx.Done()
	}
	parent := c.Context
	if c.session != nil {
		parent = WithSession(parent, c.session)
	}
	ctx, cancel := context.WithCancel(parent)
	d := &derivedContext{ctx: ctx, cancel: cancel}
	if c.ended.Load() {
		cancel()
	} else {
		d.id = c.g.track(cancel)
	}
	c.derived.Store(d)
	return ctx.Done()
}

// Value answers from the derived context once there is one, so that
// contexts made from this one find it as their parent (and context.Cause
// its cause).
func (c *callContext) Value(key any) any {
	if d := c.derived.Load(); d != nil {
		return d.ctx.Value(key)
	}
	if c.session != nil && key == any(scopeKey{}) {
		return c.session
	}
	return c.Context.Value(key)
}

// end marks the call returned: its context is done from now on.
func (c *callContext) end() {
	c.ended.Store(true)
	c.mu.Lock()
	d := c.derived.Load()
	c.mu.Unlock()
	if d != nil {
		d.cancel()
		if d.id != 0 {
			c.g.untrack(d.id)
		}
	}
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
