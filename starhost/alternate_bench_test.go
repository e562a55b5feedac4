package starhost_test

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/starhost"
)

// alternate runs first and second b.N times each, in turns of 64 calls on
// one locked OS thread, and returns the wall time and the thread's CPU
// time (getrusage RUSAGE_THREAD: the calls' own work and their GC assists,
// not the time spent waiting for a core) each took. On a shared machine the
// CPU ratio is the steady figure; the wall ratio moves with the load.
func alternate(b *testing.B, first, second func()) (wall, cpu [2]time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const turn = 64
	b.ResetTimer()
	for done := 0; done < b.N; done += turn {
		n := min(turn, b.N-done)
		for i, f := range [2]func(){first, second} {
			c0, t0 := threadCPU(), time.Now()
			for range n {
				f()
			}
			wall[i] += time.Since(t0)
			cpu[i] += threadCPU() - c0
		}
	}
	return wall, cpu
}

// threadCPU is the calling OS thread's user and system CPU so far.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportPair reports the per-call wall and CPU figures of an alternate run
// and the ratios second/first, named after the two sides.
func reportPair(b *testing.B, a, z string, wall, cpu [2]time.Duration) {
	n := float64(b.N)
	b.ReportMetric(float64(wall[0].Nanoseconds())/n, a+"-ns/call")
	b.ReportMetric(float64(wall[1].Nanoseconds())/n, z+"-ns/call")
	b.ReportMetric(float64(cpu[0].Nanoseconds())/n, a+"-cpu-ns/call")
	b.ReportMetric(float64(cpu[1].Nanoseconds())/n, z+"-cpu-ns/call")
	b.ReportMetric(float64(wall[1])/float64(wall[0]), z+"/"+a)
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), z+"/"+a+"-cpu")
}

// alternateDispatch is alternate over two dispatches; a failed call fails
// the benchmark.
func alternateDispatch(b *testing.B, first, second func() starhost.DispatchResult) (wall, cpu [2]time.Duration) {
	run := func(dispatch func() starhost.DispatchResult) func() {
		return func() {
			if res := dispatch(); !res.Result.OK() {
				b.Fatal(res.Result.Error)
			}
		}
	}
	return alternate(b, run(first), run(second))
}

// benchThread is an approving host (approvingHost) and thread "t" of a
// session of it.
func benchThread(b *testing.B) (*starhost.Host, *starhost.Thread) {
	h, _ := approvingHost(b)
	s, err := h.NewSession(context.Background(), starhost.SessionOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return h, s.Thread("t")
}
