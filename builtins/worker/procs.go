package worker

import (
	"os"
	"runtime"
	"runtime/metrics"
)

// workerProcs is the processors a worker runs its Go code on unless the
// operator set GOMAXPROCS: one for the goroutine that reads the channel,
// which waits for the host in a blocking read (blocking, issue 26 point
// 2), one for the call it serves and everything else.
const workerProcs = 2

// fewProcs runs the worker's Go code on workerProcs processors (fewer on a
// machine with fewer cores) unless the operator set GOMAXPROCS, and
// returns the worker's GOMAXPROCS. A worker serves its channel one frame
// after another, on the goroutine that read it; every processor beyond
// the two it needs is one more idle thread that a hand-off between its
// goroutines (a timer, the reader taking over from a long call) may wake
// for nothing (docs/performance.md; issue 26, point 2). With one
// processor, the reader waiting in read would hold it: the runtime takes
// it back only after 20 µs to 10 ms, and hands it back when the read
// returns, which cost each call more than the poller did. Workers run in
// parallel with each other and with the host.
func fewProcs() int {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(min(workerProcs, runtime.NumCPU()))
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
// collector marks on a quarter of the processors; a worker on few
// processors that allocates heavily (a memory bomb on its way to
// memory_limit, a plugin holding a large index) would otherwise mark and
// run on them alone. Small heaps, the common case, never pay for a check
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
