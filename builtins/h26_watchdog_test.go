package builtins

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"go.starlark.net/starlark"
)

// Runs that follow each other between two ticks keep the watchdog ticking
// instead of waking it once per run (issue 26, point 2: a worker serving a
// stream of trivial calls woke it, made a ticker and read the metrics for
// each call); a whole tick without a run puts it to sleep. The bubble's
// clock moves only when every goroutine in it waits, so each step below is
// exact.
func TestH26_2_WatchdogStaysAwakeBetweenRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &runWatchdog{running: map[*runState]watched{}, wake: make(chan struct{}, 1)}
		defer close(w.wake) // the loop ends with the bubble
		run := func() *runState {
			st := &runState{}
			w.arm(context.Background(), &starlark.Thread{}, st, 0, 0)
			return st
		}
		a := run()
		synctest.Wait() // the loop woke, saw a, and waits for its tick
		w.disarm(a)
		for range 20 {
			w.disarm(run()) // calls between two ticks
		}
		time.Sleep(watchInterval)
		synctest.Wait()
		if n := w.wakes.Load(); n != 1 {
			t.Fatalf("the watchdog woke %d times for 21 runs between two ticks, want 1", n)
		}
		time.Sleep(2 * watchInterval) // a tick without a run: the loop sleeps
		synctest.Wait()
		b := run() // and the next run wakes it
		synctest.Wait()
		w.disarm(b)
		if n := w.wakes.Load(); n != 2 {
			t.Fatalf("the watchdog woke %d times, want 2 (asleep once idle, woken by the next run)", n)
		}
		time.Sleep(3 * watchInterval)
	})
}
