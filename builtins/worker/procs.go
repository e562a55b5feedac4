package worker

import (
	"os"
	"runtime"
	"runtime/metrics"
)

// oneProc runs the worker's Go code on one processor (GOMAXPROCS=1) unless
// the operator set GOMAXPROCS, and returns the worker's GOMAXPROCS. A
// worker serves one call after another on the channel, and with a second
// processor idle every hand-off between its goroutines (the reader taking
// over, the reply written) woke a second thread that found nothing to do:
// half of a trivial call's CPU on both sides (docs/performance.md; issue
// 26, point 2). Concurrent calls to one worker still interleave, on one
// core; workers run in parallel with each other and with the host.
func oneProc() int {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	return runtime.GOMAXPROCS(0)
}

// heapThreshold is the live heap past which a worker takes its processors
// back: a quarter of its memory limit, or 64 MiB without one.
func heapThreshold(limit int64) uint64 {
	if limit > 0 {
		return uint64(limit) / 4
	}
	return 64 << 20
}

// widenWhenHeapGrows gives the worker procs processors again, once, after
// a garbage collection that leaves more than threshold bytes live. The
// collector marks on a processor of its own when it has one; a worker on
// one processor that allocates heavily (a memory bomb on its way to
// memory_limit, a plugin holding a large index) would otherwise mark and
// run on one core. Small heaps, the common case, never pay for a check
// beyond one cleanup per collection.
func widenWhenHeapGrows(procs int, threshold uint64) {
	if procs <= 1 {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		// The sentinel dies in the next collection; its cleanup runs
		// after it, on the runtime's cleanup goroutine.
		runtime.AddCleanup(new([16]byte), func(struct{}) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > threshold {
				runtime.GOMAXPROCS(procs)
				return
			}
			arm()
		}, struct{}{})
	}
	arm()
}
