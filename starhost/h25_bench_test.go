package starhost_test

// The costs of sessions (issue 25, point 8): creating one, an idle one's
// heap, and Dispatch through a session's Thread against the host-wide
// dispatch of before. docs/performance.md records the figures.

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/starhost"
)

// BenchmarkH25_NewSession times NewSession on a started host with one
// plugin (no session_started hook) and reports the heap an idle session
// holds, measured over 1,000 live sessions.
func BenchmarkH25_NewSession(b *testing.B) {
	h, _, _ := sessionsHost(b, starhost.Options{})
	ctx := context.Background()
	var made time.Duration
	var live []*starhost.Session
	for b.Loop() {
		t0 := time.Now()
		s, err := h.NewSession(ctx, starhost.SessionOptions{Facts: starhost.Facts{SessionID: "s", Mode: "work"}})
		made += time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		if live = append(live, s); len(live) == 1000 {
			for _, s := range live {
				s.End(ctx)
			}
			live = live[:0]
		}
	}
	b.ReportMetric(float64(made.Nanoseconds())/float64(b.N), "create-ns/session")
	b.ReportMetric(float64(idleSessionHeap(b, h)), "idle-B/session")
}

// idleSessionHeap is the heap 1,000 idle sessions hold, per session.
func idleSessionHeap(b *testing.B, h *starhost.Host) int64 {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	all := make([]*starhost.Session, 1000)
	for i := range all {
		all[i], _ = h.NewSession(context.Background(), starhost.SessionOptions{Facts: starhost.Facts{SessionID: fmt.Sprint(i)}})
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	runtime.KeepAlive(all)
	for _, s := range all {
		s.End(context.Background())
	}
	return (int64(m1.HeapAlloc) - int64(m0.HeapAlloc)) / int64(len(all))
}

// BenchmarkH25_DispatchThreadVsHost alternates Dispatch through a
// session's Thread with the host-wide dispatch of before (no session
// bound: Host.Dispatch as it was) in one loop, so both see the same load;
// the ratio metric is thread time over host time (the goal: at most 1.05).
func BenchmarkH25_DispatchThreadVsHost(b *testing.B) {
	h, _ := approvingHost(b)
	ctx := context.Background()
	s, err := h.NewSession(ctx, starhost.SessionOptions{})
	if err != nil {
		b.Fatal(err)
	}
	th := s.Thread("t")
	var host, thread time.Duration
	for b.Loop() {
		t0 := time.Now()
		if res := h.DispatchUnbound(ctx, "t", benchCall, nil); !res.Result.OK() {
			b.Fatal(res.Result.Error)
		}
		t1 := time.Now()
		if res := th.Dispatch(ctx, benchCall, nil); !res.Result.OK() {
			b.Fatal(res.Result.Error)
		}
		thread += time.Since(t1)
		host += t1.Sub(t0)
	}
	b.ReportMetric(float64(host.Nanoseconds())/float64(b.N), "host-ns/call")
	b.ReportMetric(float64(thread.Nanoseconds())/float64(b.N), "thread-ns/call")
	b.ReportMetric(float64(thread)/float64(host), "thread/host")
}

// BenchmarkH25_2_WorkerStatusSet alternates, in one loop, a worker's tool
// that sets a status field while serving a session (the update goes to the
// session's line within the call) with the same tool without the set, so
// both see the same load; the ratio metric is the first over the second.
func BenchmarkH25_2_WorkerStatusSet(b *testing.B) {
	h := linesHost(b, starhost.IsolationProcess)
	s, err := h.NewSession(context.Background(), starhost.SessionOptions{Facts: starhost.Facts{SessionID: "s", Mode: "work"}})
	if err != nil {
		b.Fatal(err)
	}
	var set, plain time.Duration
	for b.Loop() {
		t0 := time.Now()
		call(s, "who")
		t1 := time.Now()
		call(s, "plain")
		set, plain = set+t1.Sub(t0), plain+time.Since(t1)
	}
	if line := s.StatusLine(); line != "s · attached" {
		b.Fatalf("line %q", line)
	}
	b.ReportMetric(float64(set.Nanoseconds())/float64(b.N), "set-ns/call")
	b.ReportMetric(float64(plain.Nanoseconds())/float64(b.N), "plain-ns/call")
	b.ReportMetric(float64(set)/float64(plain), "set/plain")
}
