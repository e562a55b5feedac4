package starhost

import (
	"sync"
	"time"

	"github.com/crystal-star/crystal-star/builtins"
)

// Clock drives plugin timers (Options.Clock). A nil Clock is the real
// clock.
type Clock = builtins.Clock

// ManualClock is a Clock that moves only when Advance is called, so a test
// runs plugin timers without sleeping and without races against the real
// clock. Its time starts at zero. It is safe for concurrent use.
type ManualClock struct {
	advancing sync.Mutex // one Advance at a time
	mu        sync.Mutex
	now       time.Duration
	seq       int
	timers    map[int]*manualTimer
}

type manualTimer struct {
	every, due time.Duration
	fn         func()
}

// NewManualClock returns a manual clock at time zero with no timers.
func NewManualClock() *ManualClock {
	return &ManualClock{timers: map[int]*manualTimer{}}
}

// Every implements Clock: fn first runs once the clock has advanced by d.
func (c *ManualClock) Every(d time.Duration, fn func()) (stop func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	id := c.seq
	c.timers[id] = &manualTimer{every: d, due: c.now + d, fn: fn}
	return func() {
		c.mu.Lock()
		delete(c.timers, id)
		c.mu.Unlock()
	}
}

// Advance moves the clock forward by d and runs every timer tick that falls
// due on the way, in order of due time (ties in the order the timers were
// started), each on the caller's goroutine: when Advance returns, the ticks
// have run and their status updates are published. It returns the number
// of ticks run. A timer started by a tick runs from the tick's time on.
func (c *ManualClock) Advance(d time.Duration) int {
	c.advancing.Lock()
	defer c.advancing.Unlock()
	c.mu.Lock()
	target := c.now + d
	c.mu.Unlock()
	runs := 0
	for {
		c.mu.Lock()
		id := 0
		for k, t := range c.timers {
			if t.due <= target && (id == 0 || t.due < c.timers[id].due || t.due == c.timers[id].due && k < id) {
				id = k
			}
		}
		if id == 0 {
			c.now = target
			c.mu.Unlock()
			return runs
		}
		t := c.timers[id]
		c.now = t.due
		t.due += t.every
		c.mu.Unlock()
		t.fn()
		runs++
	}
}
