package worker

import (
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib/wire"
)

// BenchmarkH26CallBreakdown (issue 26, point 2): where a call to a worker
// process spends its time, each layer measured in the same run against
// the raw floor — a 64-byte message echoed by a second process over the
// same kind of pipes, with blocking reads on both sides:
//
//   - RawPipe: the floor.
//   - Ping: one wire frame each way through wire.Conn on both sides (the
//     reader goroutines, the call's goroutine in the worker, the reply's
//     hand-off to the caller), no work.
//   - Tool: a tool call of the fake worker through the host's stub (the
//     callback timeout's timer, the Invoke's JSON with the facts, decoding
//     the arguments and the result), no Starlark.
//
// starhost's BenchmarkIsolationInvoke adds the Starlark call; docs/
// performance.md records the figures and the ratios to RawPipe.
func BenchmarkH26CallBreakdown(b *testing.B) {
	b.Run("RawPipe", func(b *testing.B) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), fakeMode+"=echo")
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { in.Close(); _ = cmd.Wait() }()
		msg, got := make([]byte, 64), make([]byte, 64)
		latency(b, func() {
			if _, err := in.Write(msg); err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(out, got); err != nil {
				b.Fatal(err)
			}
		})
	})
	a := testActivator("serve", benchTimeout, nil)
	inst, err := a.Activate(context.Background(), testRequest(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close()
	p := inst.(*instance).p
	b.Run("Ping", func(b *testing.B) {
		latency(b, func() {
			if err := p.conn.Call(context.Background(), wire.MethodPing, nil, nil); err != nil {
				b.Fatal(err)
			}
		})
	})
	run := inst.Set().Tools[0].Run
	args := map[string]any{"do": "x"}
	b.Run("Tool", func(b *testing.B) {
		latency(b, func() {
			if res := run.Run(context.Background(), args); res.Err != nil {
				b.Fatal(res.Err)
			}
		})
	})
}

// latency runs fn b.N times and reports the median and the 99th
// percentile of one run.
func latency(b *testing.B, fn func()) {
	b.ReportAllocs()
	ds := make([]time.Duration, 0, b.N)
	for b.Loop() {
		t0 := time.Now()
		fn()
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(ds[len(ds)*99/100].Nanoseconds()), "p99-ns")
}

var benchTimeout = func() time.Duration {
	if os.Getenv("H26_NO_TIMEOUT") != "" {
		return 0
	}
	return 30 * time.Second
}()
