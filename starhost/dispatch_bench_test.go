package starhost_test

// Dispatch against the bare Invoke of the same plugin tool (no hooks, no
// plugin points: the host's approver approves), and Dispatch throughput
// while one plugin reloads continuously against none. docs/performance.md
// records the figures.

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

var benchCall = starhost.ToolCall{ID: "c", Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}

// BenchmarkDispatchVsInvoke alternates the two calls in turns (alternate)
// and times each, so both see the same load on a shared machine: the ratio
// metrics are Dispatch over Invoke, in wall and in thread CPU time (the
// goal is at most 1.2).
func BenchmarkDispatchVsInvoke(b *testing.B) {
	h, _ := approvingHost(b)
	ctx := context.Background()
	wall, cpu := alternate(b, func() {
		if res := h.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(ctx, "echo", benchCall.Arguments); !res.OK() {
			b.Fatal(res.Error)
		}
	}, func() {
		if res := h.Session().Thread("t").Dispatch(ctx, benchCall, nil); !res.Result.OK() {
			b.Fatal(res.Result.Error)
		}
	})
	reportPair(b, "invoke", "dispatch", wall, cpu)
}

// BenchmarkDispatchUnderReload: parallel Dispatch calls of one plugin's tool
// with no reload, and while that plugin reloads back to back. Every call
// must succeed (AT2).
func BenchmarkDispatchUnderReload(b *testing.B) {
	for _, reload := range []bool{false, true} {
		name := "reload=none"
		if reload {
			name = "reload=continuous"
		}
		b.Run(name, func(b *testing.B) {
			h, dir := approvingHost(b)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var reloads atomic.Int64
			if reload {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 1; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						testkit.WriteTree(b, dir, map[string]string{"plugin.star": reloadSource(i)})
						h.Reload(context.Background(), dir)
						reloads.Add(1)
					}
				}()
			}
			var failed atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if res := h.Session().Thread("t").Dispatch(context.Background(), benchCall, nil); !res.Result.OK() {
						failed.Add(1)
					}
				}
			})
			close(stop)
			wg.Wait()
			b.ReportMetric(float64(reloads.Load()), "reloads")
			if failed.Load() > 0 {
				b.Fatalf("%d calls failed", failed.Load())
			}
		})
	}
}
