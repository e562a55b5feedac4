package builtins

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
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
	causeCollateral // cancelled for a heap it shares with the run that grew it
	causeTimeout
)

// watched is one running thread under the watchdog.
type watched struct {
	ctx     context.Context // the caller's; its end cancels the run
	th      *starlark.Thread
	st      *runState
	limit   uint64        // heap budget; 0: none
	start   time.Time     // when the run began
	timeout time.Duration // callback_timeout; 0: none
	base    uint64        // the live heap when the watchdog first saw the run
	based   bool          // base is set
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
	armed   uint64 // runs armed so far, under mu
	wake    chan struct{}
	start   sync.Once
	wakes   atomic.Int64 // the times the loop woke from sleep
}

var watchdog = &runWatchdog{running: map[*runState]watched{}, wake: make(chan struct{}, 1)}

// arm registers a run with its heap budget and timeout (either may be
// zero or negative: none); disarm must follow when the run ends.
func (w *runWatchdog) arm(ctx context.Context, th *starlark.Thread, st *runState, limit int64, timeout time.Duration) {
	r := watched{th: th, st: st, start: time.Now()}
	if ctx != nil && ctx != context.Background() {
		// Not ctx.Done() != nil: on a cancellable context that allocates
		// the channel, once per call (issue 26 point 4); the tick reads
		// only Err.
		r.ctx = ctx
	}
	if limit > 0 {
		r.limit = uint64(limit)
	}
	if timeout > 0 {
		r.timeout = timeout
	}
	w.start.Do(func() { go w.loop() })
	w.mu.Lock()
	w.running[st] = r
	w.armed++
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

// loop sleeps until a run starts, then samples the heap until a whole tick
// passed in which none ran: calls that follow each other, each shorter
// than a tick (a worker serving a stream of tool calls, issue 26 point 2),
// keep it ticking instead of waking it once per call, each wake a
// goroutine scheduled, a ticker made and the metrics read.
// Each run's budget is measured from the host's live heap (as of the last
// collection) when the watchdog first saw the run: what the run's plugin
// code may add to it. A run that starts after the heap grew is judged from
// the grown heap, so it is not blamed for what ran before it.
func (w *runWatchdog) loop() {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	var batch []watched
	seen := map[*runState]uint64{} // each run's allocated at the previous tick
	var armed uint64               // runs armed as of the previous tick
	for range w.wake {
		w.wakes.Add(1)
		tick := time.NewTicker(watchInterval)
		for {
			metrics.Read(samples)
			heap := sampleValue(samples[0])
			clear(batch) // hold no finished run: it keeps its generation alive
			before := armed
			batch, armed = w.snapshot(batch[:0], sampleValue(samples[1]))
			if len(batch) == 0 {
				clear(seen) // hold no finished run: its owner pins its generation
				if armed == before {
					break // a tick without a run: sleep
				}
				w.awaitTick(tick.C)
				continue
			}
			w.mu.Lock()
			cancelLate(w, batch, time.Now())
			w.mu.Unlock()
			if anyOver(batch, heap) {
				// Garbage counts until it is collected: confirm with a
				// collection before cancelling anything.
				runtime.GC()
				metrics.Read(samples)
				heap = sampleValue(samples[0])
				w.mu.Lock()
				cancelOver(w, batch, heap, blame(batch, heap, seen))
				w.mu.Unlock()
			}
			clear(seen) // hold no finished run
			for _, r := range batch {
				seen[r.st] = r.st.allocated.Load()
			}
			w.awaitTick(tick.C)
		}
		tick.Stop()
	}
}

// awaitTick waits for the next tick. A wake pending from a run armed
// while the loop ticked is taken first: the loop is awake already.
func (w *runWatchdog) awaitTick(ticks <-chan time.Time) {
	select {
	case <-w.wake:
	default:
	}
	<-ticks
}

// fits reports whether a run of inst may allocate size more bytes within
// its budget, counted from the heap now; if not, it returns how far the
// run's heap grew already. The guard that asks runs between two steps of
// one of inst's runs but cannot tell which (an operator has no thread):
// with several runs of one generation in progress, the most recent
// baseline among them counts. Garbage counts until collected, so an
// apparent overshoot is confirmed after a collection, as in loop.
func (w *runWatchdog) fits(inst *instance, size uint64) (uint64, bool) {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(samples)
	base, limit, ok := w.baseline(inst, sampleValue(samples[1]))
	if !ok {
		return 0, true
	}
	heap := sampleValue(samples[0])
	if heap+size <= base+limit {
		return 0, true
	}
	runtime.GC()
	metrics.Read(samples)
	heap = sampleValue(samples[0])
	if heap+size <= base+limit {
		return 0, true
	}
	return heap - min(heap, base), false
}

// creditSole counts size as allocated by the one run of inst in progress:
// the evidence of an allocation whose guard cannot tell which of inst's
// runs asked (an operand guard of `+` has no thread). With several runs of
// inst in progress it credits none: evidence given to a run that did not
// allocate could blame it (docs/isolation.md, "Whose fault it was").
func (w *runWatchdog) creditSole(inst *instance, size uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var sole *runState
	for _, r := range w.running {
		if r.st.owner == inst {
			if sole != nil {
				return
			}
			sole = r.st
		}
	}
	if sole != nil {
		sole.allocated.Add(size)
	}
}

// baseline returns the highest baseline and the budget of inst's runs in
// progress, giving each run not seen yet its baseline, live.
func (w *runWatchdog) baseline(inst *instance, live uint64) (base, limit uint64, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, r := range w.running {
		if r.st.owner != inst || r.limit == 0 {
			continue
		}
		if !r.based {
			r.base, r.based = live, true
			w.running[k] = r
		}
		base, limit, ok = max(base, r.base), r.limit, true
	}
	return base, limit, ok
}

// snapshot copies the running runs into into, giving each run seen for
// the first time its baseline, live, and returns them with the number of
// runs armed so far.
func (w *runWatchdog) snapshot(into []watched, live uint64) ([]watched, uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, r := range w.running {
		if !r.based {
			r.base, r.based = live, true
			w.running[k] = r
		}
		into = append(into, r)
	}
	return into, w.armed
}

// over reports whether heap exceeds the run's budget.
func (r *watched) over(heap uint64) bool { return r.limit > 0 && heap > r.base+r.limit }

// live reports whether r's run is still registered; w.mu must be held.
// The watchdog cancels a thread only while its run is: once disarm
// returned, nothing cancels the thread any more, so a callback's thread
// can be reused for the next run (reuseThread).
func (w *runWatchdog) live(r watched) bool {
	_, ok := w.running[r.st]
	return ok
}

// cancelLate cancels the runs whose caller's context ended, and those
// that outlived their timeout: at their next step, within one tick. The
// time a run spends waiting for a person (ctx.ask) is not counted. w.mu
// must be held: a run that ended since batch was taken is left alone.
func cancelLate(w *runWatchdog, batch []watched, now time.Time) {
	for _, r := range batch {
		if !w.live(r) {
			continue
		}
		if r.ctx != nil && r.ctx.Err() != nil {
			r.th.Cancel(cancelReason(r.ctx))
			continue
		}
		if r.timeout > 0 && r.st.asking.Load() == 0 && now.Sub(r.start)-time.Duration(r.st.paused.Load()) > r.timeout &&
			r.st.cause.CompareAndSwap(causeNone, causeTimeout) {
			r.th.Cancel("callback timeout exceeded")
		}
	}
}

// cancelOver cancels the runs over their heap budget: culprit for its
// own doing, the others as collateral. w.mu must be held: a run that
// ended since batch was taken is left alone.
func cancelOver(w *runWatchdog, batch []watched, heap uint64, culprit *runState) {
	for _, r := range batch {
		cause := causeCollateral
		if r.st == culprit {
			cause = causeMemory
		}
		if w.live(r) && r.over(heap) && r.st.cause.CompareAndSwap(causeNone, cause) {
			r.th.Cancel("memory limit exceeded")
		}
	}
}

// blame names the run whose memory_limit is exceeded by its own doing, or
// nil. The heap is one per process and cannot be attributed to a thread, so
// the watchdog judges by what it can see: a run alone in the process grew
// the heap itself; among several, the run that allocated the most through
// the allocation guards since the previous tick (seen: each run's count
// then) was growing it; when the guards saw nobody, the one run not
// waiting in a host call (a model call runs no plugin code) was. The
// culprit is blamed only if it is over its own budget. Every other run over
// its budget is cancelled as collateral: its result says so and points at
// none of its code. A culprit that grew the heap only in ways the guards do
// not count (list.append of small values, one builtin such as join) while
// another run was running plugin code too is collateral as well; retried
// alone, it is blamed.
func blame(batch []watched, heap uint64, seen map[*runState]uint64) *runState {
	if len(batch) == 1 {
		return batch[0].st
	}
	var culprit, running *runState
	var most uint64
	busy := 0
	for _, r := range batch {
		if grew := r.st.allocated.Load() - seen[r.st]; grew > most {
			culprit, most = r.st, grew
		}
		if r.st.waiting.Load() == 0 {
			running, busy = r.st, busy+1
		}
	}
	if culprit == nil && busy == 1 {
		culprit = running
	}
	for _, r := range batch {
		if r.st == culprit && r.over(heap) {
			return culprit
		}
	}
	return nil
}

func anyOver(batch []watched, heap uint64) bool {
	for i := range batch {
		if batch[i].over(heap) {
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
