package builtins

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"go.starlark.net/starlark"
)

// DefaultMemoryLimit is the default in-process heap budget: how far the Go
// heap may grow over the host's own live heap while plugin code runs.
const DefaultMemoryLimit = 512 << 20

// DefaultCallbackTimeout is the default wall-clock limit of one run (the
// module's top level or one callback).
const DefaultCallbackTimeout = 30 * time.Second

// watchInterval is how often the heap is sampled while plugin code runs. A
// doubling string grows by at most a step or two between samples; reading
// one runtime metric costs about a microsecond, so this is 0.05% of a core.
const watchInterval = 2 * time.Millisecond

// Why a run was cancelled from outside its own thread.
const (
	causeNone int32 = iota
	causeMemory
	causeTimeout
)

// watched is one running thread under the watchdog.
type watched struct {
	th      *starlark.Thread
	st      *runState
	limit   uint64        // heap budget; 0: none
	start   time.Time     // when the run began
	timeout time.Duration // callback_timeout; 0: none
}

// runWatchdog cancels the running Starlark threads whose budget the heap
// has outgrown, and those that outlived their callback_timeout. The heap is
// process-wide, so there is one watchdog per process; it ticks only while
// at least one run is in progress, so an idle host pays nothing and a tool
// call pays a clock read and a map insert and delete — no timer, no
// context, no allocation per call.
type runWatchdog struct {
	mu      sync.Mutex
	running map[*runState]watched
	wake    chan struct{}
	start   sync.Once
}

var watchdog = &runWatchdog{running: map[*runState]watched{}, wake: make(chan struct{}, 1)}

// arm registers a run with its heap budget and timeout (either may be
// zero or negative: none); disarm must follow when the run ends.
func (w *runWatchdog) arm(th *starlark.Thread, st *runState, limit int64, timeout time.Duration) {
	r := watched{th: th, st: st, start: time.Now()}
	if limit > 0 {
		r.limit = uint64(limit)
	}
	if timeout > 0 {
		r.timeout = timeout
	}
	w.start.Do(func() { go w.loop() })
	w.mu.Lock()
	w.running[st] = r
	first := len(w.running) == 1
	w.mu.Unlock()
	if first {
		select {
		case w.wake <- struct{}{}:
		default: // already signalled
		}
	}
}

// disarm unregisters the run of st.
func (w *runWatchdog) disarm(st *runState) {
	w.mu.Lock()
	delete(w.running, st)
	w.mu.Unlock()
}

// loop sleeps until a run starts, then samples the heap until none runs.
// The baseline is the host's live heap when sampling begins: the budget is
// what plugin code may add to it.
func (w *runWatchdog) loop() {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	var batch []watched
	for range w.wake {
		metrics.Read(samples)
		base := sampleValue(samples[1])
		tick := time.NewTicker(watchInterval)
		for range tick.C {
			clear(batch) // hold no finished run: it keeps its generation alive
			batch = w.snapshot(batch[:0])
			if len(batch) == 0 {
				break
			}
			cancelLate(batch, time.Now())
			metrics.Read(samples)
			if !anyOver(batch, sampleValue(samples[0]), base) {
				continue
			}
			// Garbage counts until it is collected: confirm with a
			// collection before cancelling anything.
			runtime.GC()
			metrics.Read(samples)
			heap := sampleValue(samples[0])
			for _, r := range batch {
				if r.limit > 0 && heap > base+r.limit && r.st.cause.CompareAndSwap(causeNone, causeMemory) {
					r.th.Cancel("memory limit exceeded")
				}
			}
		}
		tick.Stop()
	}
}

func (w *runWatchdog) snapshot(into []watched) []watched {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.running {
		into = append(into, r)
	}
	return into
}

// cancelLate cancels the runs that outlived their timeout: at their next
// step, within one tick of the deadline.
func cancelLate(batch []watched, now time.Time) {
	for _, r := range batch {
		if r.timeout > 0 && now.Sub(r.start) > r.timeout && r.st.cause.CompareAndSwap(causeNone, causeTimeout) {
			r.th.Cancel("callback timeout exceeded")
		}
	}
}

func anyOver(batch []watched, heap, base uint64) bool {
	for _, r := range batch {
		if r.limit > 0 && heap > base+r.limit {
			return true
		}
	}
	return false
}

func sampleValue(s metrics.Sample) uint64 {
	if s.Value.Kind() == metrics.KindUint64 {
		return s.Value.Uint64()
	}
	return 0
}
