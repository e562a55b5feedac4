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
// the ratio metrics are thread over host, in wall and in thread CPU time
// (the goal: at most 1.05).
func BenchmarkH25_DispatchThreadVsHost(b *testing.B) {
	h, th := benchThread(b)
	wall, cpu := alternateDispatch(b, func() starhost.DispatchResult {
		return h.DispatchUnbound(context.Background(), "t", benchCall, nil)
	}, func() starhost.DispatchResult {
		return th.Dispatch(context.Background(), benchCall, nil)
	})
	reportPair(b, "host", "thread", wall, cpu)
}

// BenchmarkH25_5_DispatchInvoker: a host with an Invoker of its own
// dispatches a plugin tool. "own" runs it the way the Invoker's old
// contract made every such host do — a second Tools planning and
// ToolSnapshot.Invoke, its arguments validated again and its result
// converted out and back — and "leave" answers ran=false, so Dispatch runs
// it from the snapshot it checked the call against. The two alternate
// (alternate), so both see the same load; leave/own is the ratio.
func BenchmarkH25_5_DispatchInvoker(b *testing.B) {
	_, th := benchThread(b)
	own := func(ctx context.Context, call starhost.ToolCall) (starhost.ToolResult, bool) {
		return th.Tools(ctx, starhost.Work).Invoke(ctx, call.Name, call.Arguments), true
	}
	leave := func(context.Context, starhost.ToolCall) (starhost.ToolResult, bool) {
		return starhost.ToolResult{}, false
	}
	wall, cpu := alternateDispatch(b, func() starhost.DispatchResult {
		return th.Dispatch(context.Background(), benchCall, own)
	}, func() starhost.DispatchResult {
		return th.Dispatch(context.Background(), benchCall, leave)
	})
	reportPair(b, "own", "leave", wall, cpu)
}
