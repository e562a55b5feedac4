package builtins

import (
	"context"
	"testing"

	"go.starlark.net/starlark"
)

// BenchmarkH24_GuardEvidence: 1000 concatenations of a 2 KiB string, each
// through the `+` guard, which counts it on the run (runState.allocated,
// the watchdog's evidence of who grows the heap: issue 24, point 10),
// against the same loop compiled by raw go.starlark.net.
func BenchmarkH24_GuardEvidence(b *testing.B) {
	const src = `def f(big):
    n = 0
    for i in range(1000):
        n += len(big + "")
        s = big + big
    return n
`
	big := starlark.String(string(make([]byte, 2048)))
	b.Run("host", func(b *testing.B) {
		inst, err := NewActivator(Options{}).Activate(context.Background(), request(src+"contribute()\n", &noteLog{}))
		if err != nil {
			b.Fatal(err)
		}
		th, _ := inst.(*instance).newThread("bench")
		prog := mustCompile(b, src, true)
		g, err := prog.Init(th, predeclared)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			th.Steps = 0
			if _, err := starlark.Call(th, g["f"], starlark.Tuple{big}, nil); err != nil {
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
			if _, err := starlark.Call(th, g["f"], starlark.Tuple{big}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
