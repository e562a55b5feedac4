package worker

import (
	"sync"
	"time"
)

// pausableDeadline calls its expiry once it has run for its timeout, not
// counting the time it was paused: a worker call's callback_timeout,
// stopped while the call waits for a person (ctx.ask). It is a timer and
// no context (issue 26, point 2): the expiry kills the worker, whose
// channel then ends, which ends the call; a context per call, with its
// cancellation propagated to the call's own context and a function run
// after it, was a fifth of the host's allocations per call.
type pausableDeadline struct {
	expire func(*pausableDeadline)

	mu      sync.Mutex
	timer   *time.Timer
	left    time.Duration // what remains when paused
	started time.Time     // when the running stretch began
	pauses  int           // pauses in effect; the clock runs at 0
	stopped bool          // by stop or by expiring
	expired bool
}

// startDeadline returns a deadline that calls expire timeout after now,
// plus the time spent paused, unless stop came first.
func startDeadline(timeout time.Duration, expire func(*pausableDeadline)) *pausableDeadline {
	d := &pausableDeadline{expire: expire, left: timeout, started: time.Now()}
	d.timer = time.AfterFunc(timeout, d.fire)
	return d
}

func (d *pausableDeadline) fire() {
	d.mu.Lock()
	live := !d.stopped
	if live {
		d.stopped, d.expired = true, true
	}
	d.mu.Unlock()
	if live {
		d.expire(d)
	}
}

// passed reports whether the deadline expired.
func (d *pausableDeadline) passed() bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.expired
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

// stop releases the timer: the deadline no longer expires.
func (d *pausableDeadline) stop() {
	d.mu.Lock()
	d.stopped = true
	d.timer.Stop()
	d.mu.Unlock()
}
