package builtins

import (
	"context"
	"runtime/metrics"
	"testing"

	"go.starlark.net/starlark"
)

// BenchmarkWatchdogArm is what each run pays the watchdog: registering and
// unregistering itself.
func BenchmarkWatchdogArm(b *testing.B) {
	th, st := &starlark.Thread{}, &runState{}
	for b.Loop() {
		watchdog.arm(th, st, DefaultMemoryLimit, DefaultCallbackTimeout)
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
		th, _ := inst.(*instance).newThread("bench") // the thread the guard reads its budget from
		prog := mustCompile(b, src, true)
		g, err := prog.Init(th, predeclared)
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
	f, err := Dialect.Parse("bench.star", []byte(src), 0)
	if err != nil {
		b.Fatal(err)
	}
	if guard {
		guardRepeats(f)
	}
	prog, err := starlark.FileProgram(f, func(name string) bool { return guard && IsPredeclared(name) })
	if err != nil {
		b.Fatal(err)
	}
	return prog
}
