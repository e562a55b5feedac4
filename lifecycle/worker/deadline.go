package worker

import (
	"context"
	"sync"
	"time"
)

// pausableDeadline ends its context with errTimedOut once it has run for
// its timeout, not counting the time it was paused: a worker call's
// callback_timeout, stopped while the call waits for a person (ctx.ask).
type pausableDeadline struct {
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	timer   *time.Timer
	left    time.Duration // what remains when paused
	started time.Time     // when the running stretch began
	pauses  int           // pauses in effect; the clock runs at 0
	stopped bool
}

// withPausableDeadline returns a context that ends timeout after now,
// plus the time spent paused, with errTimedOut as its cause.
func withPausableDeadline(parent context.Context, timeout time.Duration) (context.Context, *pausableDeadline) {
	ctx, cancel := context.WithCancelCause(parent)
	d := &pausableDeadline{cancel: cancel, left: timeout, started: time.Now()}
	d.timer = time.AfterFunc(timeout, func() { cancel(errTimedOut) })
	return ctx, d
}

// pause stops the clock until the returned function is called; pauses
// nest. A deadline that already passed stays passed.
func (d *pausableDeadline) pause() (resume func()) {
	d.mu.Lock()
	d.pauses++
	if d.pauses == 1 && !d.stopped && d.timer.Stop() {
		d.left -= time.Since(d.started)
	}
	d.mu.Unlock()
	var once sync.Once
	return func() { once.Do(d.resume) }
}

func (d *pausableDeadline) resume() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pauses--
	if d.pauses == 0 && !d.stopped {
		d.started = time.Now()
		d.timer.Reset(max(d.left, 0))
	}
}

// stop releases the timer and the context.
func (d *pausableDeadline) stop() {
	d.mu.Lock()
	d.stopped = true
	d.timer.Stop()
	d.mu.Unlock()
	d.cancel(context.Canceled)
}
