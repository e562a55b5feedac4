package builtins

import (
	"context"
	"runtime/metrics"
	"testing"
	"time"

	"go.starlark.net/starlark"
)

// BenchmarkWatchdogArm is what each run pays the watchdog: registering and
// unregistering itself.
func BenchmarkWatchdogArm(b *testing.B) {
	th, st := &starlark.Thread{}, &runState{}
	for b.Loop() {
		watchdog.arm(context.Background(), th, st, DefaultMemoryLimit, DefaultCallbackTimeout)
		watchdog.disarm(st)
	}
}

// BenchmarkWatchdogSample is one tick's heap sample (every 2 ms, only while
// plugin code runs).
func BenchmarkWatchdogSample(b *testing.B) {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	for b.Loop() {
		metrics.Read(samples)
	}
}

// BenchmarkRepeatGuard compares a loop of 1000 multiplications compiled by
// the host (each `*` and `+` through its guard) with the same loop compiled
// by raw go.starlark.net.
func BenchmarkRepeatGuard(b *testing.B) {
	const src = `def f():
    n = 0
    for i in range(1000):
        n = n + i * 3
    return n
`
	b.Run("host", func(b *testing.B) {
		inst, err := NewActivator(Options{}).Activate(context.Background(), request(src+"contribute()\n", &noteLog{}))
		if err != nil {
			b.Fatal(err)
		}
		th, _ := inst.(*instance).newThread("bench")
		prog := mustCompile(b, src, true)
		g, err := prog.Init(th, instancePredeclared(inst.(*instance))) // the guards bound to its budget
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			th.Steps = 0 // one budget per call, as in a real run
			if _, err := starlark.Call(th, g["f"], nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		th := &starlark.Thread{}
		prog := mustCompile(b, src, false)
		g, err := prog.Init(th, nil)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := starlark.Call(th, g["f"], nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func mustCompile(b *testing.B, src string, guard bool) *starlark.Program {
	return mustCompileTB(b, src, guard)
}

// BenchmarkH26_4_Operators is what the operator guards cost loop-heavy
// plugin code (issue 26 point 4): each function compiled by the host (the
// guards bound to a generation with the default memory budget) against the
// same source compiled by raw go.starlark.net, interleaved in chunks of 16
// calls so both share every load spike. It reports host-ns/op, raw-ns/op
// and their ratio.
func BenchmarkH26_4_Operators(b *testing.B) {
	for _, c := range []struct{ name, src string }{
		{"LoopSum", "def f():\n    n = 0\n    for i in range(2000):\n        n += i\n    return n\n"},
		{"MulAdd", "def f():\n    n = 0\n    for i in range(1000):\n        n = n + i * 3\n    return n\n"},
		{"StringBuild", "def f():\n    out = \"\"\n    sep = \",\"\n    for i in range(500):\n        out += \"%d\" % i\n        out = out + sep\n    return len(out)\n"},
		{"ListAppend", "def f():\n    out = []\n    acc = []\n    for i in range(1000):\n        out.append(i * i)\n        acc += [i]\n    return len(out) + len(acc)\n"},
		// `*` of a sequence: a guard call that knows its run (issue 24 point 10).
		{"RepeatString", "def f():\n    n = 0\n    s = \"ab\"\n    for i in range(1000):\n        n += len(s * 3)\n    return n\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			host, raw, hth, rth := compiledPair(b, c.src)
			timed := func(th *starlark.Thread, fn starlark.Value, n int) time.Duration {
				t0 := time.Now()
				for range n {
					th.Steps = 0
					if _, err := starlark.Call(th, fn, nil, nil); err != nil {
						b.Fatal(err)
					}
				}
				return time.Since(t0)
			}
			var h, r time.Duration
			for i := 0; i < b.N; i += 16 {
				n := min(16, b.N-i)
				h += timed(hth, host, n)
				r += timed(rth, raw, n)
			}
			b.ReportMetric(float64(h.Nanoseconds())/float64(b.N), "host-ns/op")
			b.ReportMetric(float64(r.Nanoseconds())/float64(b.N), "raw-ns/op")
			b.ReportMetric(float64(h)/float64(r), "ratio")
		})
	}
}

// BenchmarkH26_7_StepRate measures how many steps raw go.starlark.net runs
// per second on a plain loop with a branch (`n += i` when i is even), the
// figure the default step budget is chosen from (issue 26 point 7): it
// reports steps/s, and the loop iterations and seconds of raw work that
// DefaultStepBudget allows.
func BenchmarkH26_7_StepRate(b *testing.B) {
	const src = "def f():\n    n = 0\n    for i in range(100000):\n        if i % 2 == 0:\n            n += i\n    return n\n"
	_, raw, _, th := compiledPair(b, src)
	var steps uint64
	t0 := time.Now()
	for b.Loop() {
		th.Steps = 0
		if _, err := starlark.Call(th, raw, nil, nil); err != nil {
			b.Fatal(err)
		}
		steps += th.Steps
	}
	rate := float64(steps) / time.Since(t0).Seconds()
	perIter := float64(steps) / float64(b.N) / 100000
	b.ReportMetric(rate, "steps/s")
	b.ReportMetric(float64(DefaultStepBudget)/perIter, "iterations/budget")
	b.ReportMetric(float64(DefaultStepBudget)/rate, "s/budget")
}
