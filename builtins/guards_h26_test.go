package builtins

import (
	"context"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/contrib"
)

// compiledPair returns f compiled by the host (guards bound to a generation
// with the default memory budget) and by raw go.starlark.net, each with the
// thread to call it on.
func compiledPair(t testing.TB, src string) (host, raw starlark.Value, hth, rth *starlark.Thread) {
	t.Helper()
	inst, err := NewActivator(Options{}).Activate(context.Background(), request("contribute()\n", &noteLog{}))
	if err != nil {
		t.Fatal(err)
	}
	hth, _ = inst.(*instance).newThread("test")
	hg, err := mustCompileTB(t, src, true).Init(hth, instancePredeclared(inst.(*instance)))
	if err != nil {
		t.Fatal(err)
	}
	rth = &starlark.Thread{}
	rg, err := mustCompileTB(t, src, false).Init(rth, nil)
	if err != nil {
		t.Fatal(err)
	}
	return hg["f"], rg["f"], hth, rth
}

func mustCompileTB(t testing.TB, src string, guard bool) *starlark.Program {
	t.Helper()
	f, err := Dialect.Parse("bench.star", []byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	if guard {
		guardRepeats(f)
	}
	prog, err := starlark.FileProgram(f, func(name string) bool { return guard && IsPredeclared(name) })
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// Issue 26 point 4: the guards of `+`, `+=` and `*` cost a loop over
// numbers no allocation (and no builtin call): the host-compiled loop
// allocates what the raw one does. When each guarded operator was a call
// of a hidden builtin, every iteration allocated its argument tuple.
func TestH26_4_NumericLoopAllocatesLikeRaw(t *testing.T) {
	for _, body := range []string{"n += i", "n = n + i * 3", "n = n + i\n        n *= 1"} {
		src := "def f():\n    n = 0\n    for i in range(2000):\n        " + body + "\n    return n\n"
		host, raw, hth, rth := compiledPair(t, src)
		call := func(th *starlark.Thread, fn starlark.Value) func() {
			return func() {
				th.Steps = 0
				if _, err := starlark.Call(th, fn, nil, nil); err != nil {
					t.Fatal(err)
				}
			}
		}
		h := testing.AllocsPerRun(20, call(hth, host))
		r := testing.AllocsPerRun(20, call(rth, raw))
		if h > r+2 {
			t.Errorf("%q: the host-compiled loop allocates %.0f times per call, raw %.0f", body, h, r)
		}
	}
}

// A guarded `+=` of a large list still extends the list itself (another
// name for it sees the new elements), as the interpreter's own `+=` does,
// and says the same thing about a frozen list.
func TestH26_4_LargeListExtendsInPlace(t *testing.T) {
	const src = `
BIG = list(range(10000))

def f():
    a = list(range(10))
    b = a
    a += BIG
    a += tuple(BIG)
    return len(b)

def g():
    x = BIG
    x += BIG
`
	host, _, hth, _ := compiledPair(t, src+"\n")
	got, err := starlark.Call(hth, host, nil, nil)
	if err != nil || got != starlark.MakeInt(20010) {
		t.Fatalf("len(b) = %v, %v; want 20010 (b is a)", got, err)
	}
	globals := host.(*starlark.Function).Globals()
	globals.Freeze()
	_, err = starlark.Call(hth, globals["g"], nil, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot apply += to frozen list") {
		t.Fatalf("+= of a frozen list: %v; want the interpreter's message", err)
	}
}

// The right operand's size decides whether `+` is checked: doubling a
// list with `+=` (both operands large) is refused before the step that
// would cross the budget, as `s += s` and `l = l + l` are.
func TestH26_4_ListDoublingRefused(t *testing.T) {
	src := "def grow(ctx, args):\n    l = [0]\n    for i in range(40):\n        l += l\n    return str(len(l))\n\n" +
		"contribute(tools = [tool(name = \"grow\", catalogs = \"work\", run = grow)])\n"
	res, _ := runTool(t, Options{MemoryLimit: 64 << 20}, src)
	if res.Err == nil || !strings.HasPrefix(res.Err.Message, "memory_limit 64MiB exceeded at plugin.star:4:") {
		t.Fatalf("result %+v; want tool_failed: memory_limit 64MiB exceeded at plugin.star:4:…", res.Err)
	}
	if res.Err.Code != contrib.ErrToolFailed {
		t.Errorf("code %s", res.Err.Code)
	}
}

// The compiler leaves out a guard only where an operand is certainly a
// number (numeric.go); a parameter, a global, an unpacked name, a name a
// comprehension or a nested function binds, or a local that once holds a
// string, keeps its guard, and so does a loop over a `range` the plugin
// redefined.
func TestH26_4_NumericAnalysisKeepsGuards(t *testing.T) {
	for _, c := range []struct {
		src    string
		guards int
	}{
		{"def f():\n    n = 0\n    for i in range(9):\n        n += i\n    return n\n", 0},
		{"def f(x):\n    n = len(x)\n    m = n * 3 - 1\n    return n * n + m\n", 0},
		{"def f(n):\n    return n + n\n", 1},
		{"def range(n):\n    return []\n\ndef f():\n    n = 0\n    for i in range(9):\n        n += i\n", 1},
		{"def f():\n    s = 0\n    s = \"x\"\n    return s + s\n", 1},
		{"def f():\n    i = 0\n    return [i + i for i in [\"a\"]]\n", 1},
		{"def f():\n    n = 1\n    def g(m):\n        return m + n\n    return g\n", 1},
		{"def f():\n    a, b = 1, 2\n    return a + b\n", 1},
		{"N = 3\n\ndef f(s):\n    return s * N\n", 1},
		{"def f():\n    n = 0\n    for i in range(9):\n        n += i\n    n = \"s\"\n    return n + n\n", 1},
		{"def f(s):\n    k = 2 * 3\n    return s * k\n", 1},
	} {
		f, err := Dialect.Parse("t.star", []byte(c.src), 0)
		if err != nil {
			t.Fatal(err)
		}
		guardRepeats(f)
		got := 0
		syntax.Walk(f, func(n syntax.Node) bool {
			var fn syntax.Expr // G[y], or R(x, y) for `*`
			switch n := n.(type) {
			case *syntax.IndexExpr:
				fn = n.X
			case *syntax.CallExpr:
				fn = n.Fn
			}
			if id, ok := fn.(*syntax.Ident); ok && strings.HasPrefix(id.Name, aliasPrefix) {
				got++
			}
			return true
		})
		if got != c.guards {
			t.Errorf("%s: %d guarded operands, want %d", c.src, got, c.guards)
		}
	}
}
