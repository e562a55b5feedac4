package builtins

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
)

// activateErr activates src and returns its one diagnostic.
func activateErr(t *testing.T, opts Options, src string) contrib.Diagnostic {
	t.Helper()
	_, err := NewActivator(opts).Activate(context.Background(), request(src, &noteLog{}))
	var ae *contrib.ActivationError
	if !errors.As(err, &ae) || len(ae.Diagnostics) != 1 {
		t.Fatalf("err = %v, want one diagnostic", err)
	}
	return ae.Diagnostics[0]
}

// runTool activates src and calls its first tool.
func runTool(t *testing.T, opts Options, src string) (contrib.Result, *noteLog) {
	t.Helper()
	log := &noteLog{}
	inst, err := NewActivator(opts).Activate(context.Background(), request(src, log))
	if err != nil {
		t.Fatal(err)
	}
	return inst.Set().Tools[0].Run.Run(context.Background(), map[string]any{}), log
}

// A repeat larger than the memory budget is refused before it allocates:
// `[0] * 1000000000` is 16 GB, which go.starlark.net's own guard (2^30
// elements) lets through and Go cannot survive.
func TestResourceExhausted_RepeatRefusedEarly(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d := activateErr(t, Options{}, "X = [0] * 1000000000\ncontribute()\n")
	runtime.ReadMemStats(&after)
	if d.Code != contrib.ResourceExhausted || d.Pos.Line != 1 || d.Pos.Col != 9 {
		t.Errorf("%s at %v; want ResourceExhausted at 1:9", d, d.Pos)
	}
	if !strings.Contains(d.Message, "memory_limit 512MiB exceeded: list * 1000000000 would allocate 16000000000 bytes") {
		t.Errorf("message %q does not name the limit and the size", d.Message)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("the refused repeat still allocated %d bytes", grew)
	}
	for _, c := range []struct{ name, src string }{
		{"string repeat", "S = 'ab' * (1 << 29)\n"},
		{"augmented", "def f():\n    s = ['a']\n    s *= 1 << 26\nf()\n"},
		{"augmented indexed", "D = {'k': [1]}\nD['k'] *= 1 << 26\n"},
		{"tuple repeat", "def f(n):\n    return n * (1,)\nX = f(1 << 26)\n"},
		{"list preallocates", "X = list(range(1 << 30))\n"},
		{"sorted", "X = sorted(range(1 << 30))\n"},
		{"set", "X = set(range(1 << 28))\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := activateErr(t, Options{MemoryLimit: 256 << 20}, c.src+"contribute()\n"); d.Code != contrib.ResourceExhausted {
				t.Errorf("%q: %s; want ResourceExhausted", c.src, d)
			}
		})
	}
}

// Multiplication keeps its meaning under the guard.
func TestResourceExhausted_GuardKeepsArithmetic(t *testing.T) {
	const src = `
def check():
    n = 3
    x = [1] * n
    x *= 2
    s = "ab" * n
    f = 1.5 * n
    if n * 4 != 12 or len(x) != 6 or s != "ababab" or f != 4.5 or 2 * 3 != 6 or (1,) * 2 != (1, 1):
        fail("wrong")
check()
contribute()
`
	if _, err := NewActivator(Options{}).Activate(context.Background(), request(src, &noteLog{})); err != nil {
		t.Fatal(err)
	}
}

// A list that grows by small steps, each under any single-allocation
// guard, grows the heap step by step; the heap watchdog cancels the run and
// the tool's message names the limit and the position.
func TestResourceExhausted_WatchdogStopsGrowth(t *testing.T) {
	const src = `def grow(ctx, args):
    l = []
    for i in range(1000000):
        l.append("x" * 4096)
    return str(len(l))

contribute(tools = [tool(name = "grow", catalogs = "work", run = grow)])
`
	res, log := runTool(t, Options{MemoryLimit: 32 << 20}, src)
	if res.Err == nil || res.Err.Code != contrib.ErrToolFailed || !strings.HasPrefix(res.Err.Message, "memory_limit 32MiB exceeded at plugin.star:") {
		t.Fatalf("result %+v; want tool_failed: memory_limit 32MiB exceeded at plugin.star:…", res.Err)
	}
	if len(log.All()) != 1 || log.All()[0].Code != contrib.ResourceExhausted || !strings.Contains(log.All()[0].Message, "the heap grew past the limit") {
		t.Errorf("notes %v; want one ResourceExhausted from the watchdog", log.All())
	}
}

// callback_timeout cancels a run at its next step.
func TestCallbackTimeout_CancelsAtNextStep(t *testing.T) {
	const src = `def spin(ctx, args):
    while True:
        pass

contribute(tools = [tool(name = "spin", catalogs = "work", run = spin)])
`
	res, log := runTool(t, Options{Steps: 1 << 62, CallbackTimeout: 20 * time.Millisecond}, src)
	if res.Err == nil || !strings.HasPrefix(res.Err.Message, "callback_timeout 20ms exceeded at plugin.star:") {
		t.Fatalf("result %+v; want callback_timeout 20ms exceeded at plugin.star:…", res.Err)
	}
	if len(log.All()) != 1 || log.All()[0].Code != contrib.CallbackTimeout {
		t.Errorf("notes %v; want one CallbackTimeout", log.All())
	}
}

// A failed tool call's message says why and where, never the plugin's own
// error text (DC6).
func TestDC6_FailureMessageSaysWhy(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"uncaught error", "    fail('secret hunter2')", "uncaught error at plugin.star:2:9"},
		{"step budget", "    n = 0\n    while True:\n        n += 1", "step budget of 1000 exhausted at plugin.star:4:9"},
		{"not JSON", "    return run", "the result cannot be encoded as JSON at plugin.star:3:25"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "def run(ctx, args):\n" + c.body + "\n\ncontribute(tools = [tool(name = \"t\", catalogs = \"work\", run = run)])\n"
			src = strings.Replace(src, "\n\ncontribute", "\ncontribute", 1)
			res, _ := runTool(t, Options{Steps: 1000}, src)
			if res.Err == nil || res.Err.Code != contrib.ErrToolFailed || res.Err.Message != c.want {
				t.Errorf("result %+v; want tool_failed: %s", res.Err, c.want)
			}
		})
	}
}

// str, repr, print, json.encode and json.decode refuse values nested deeper
// than contrib.MaxNesting before walking them; shallow values, cycles and
// wide values still work.
func TestNesting_BuiltinsRefuseDeepValues(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"str(DEEP)", "str: value nested more than 100 levels deep"},
		{"repr(DEEP)", "repr: value nested more than 100 levels deep"},
		{"print(DEEP)", "print: value nested more than 100 levels deep"},
		{"json.encode(DEEP)", "json.encode: value nested more than 100 levels deep"},
		{"json.encode_indent({'k': DEEP})", "json.encode_indent: value nested more than 100 levels deep"},
		{"json.decode('[' * 1000000)", "json.decode: JSON nested more than 100 levels deep"},
		{"str(WIDE)", "str: value holds more than 1000000 lists"},
		{"'%s' % DEEP", "format: value nested more than 100 levels deep"},
		{"'%s %s' % (1, DEEP)", "format: value nested more than 100 levels deep"},
		{"'{} {x}'.format(1, x = DEEP)", "format: value nested more than 100 levels deep"},
		{"'{}'.format(*[DEEP])", "format: value nested more than 100 levels deep"},
	} {
		t.Run(c.expr, func(t *testing.T) {
			src := `def deep(n):
    x = []
    for _ in range(n):
        x = [x]
    return x
def wide(n):
    x = [1]
    for _ in range(n):
        x = [x, x]
    return x
DEEP = deep(1000)
WIDE = wide(60)
X = ` + c.expr + "\ncontribute()\n"
			if d := activateErr(t, Options{}, src); d.Code != contrib.ExecutionFailed || !strings.Contains(d.Message, c.want) {
				t.Errorf("%s; want ExecutionFailed: %s", d, c.want)
			}
		})
	}
	const ok = `def deep(n):
    x = []
    for _ in range(n):
        x = [x]
    return x
C = []
C.append(C)
W = list(range(100000))
S = str(deep(99)) + str(C) + repr(W) + json.encode(deep(99)) + json.encode(W)
F = "%s %d" % ("a", 1) + "%s" % deep(98) + "{} {k}".format(1, k = deep(98)) + "{}".format(*[C])
if F != "a 1" + str(deep(98)) + "1 " + str(deep(98)) + "[[...]]":
    fail(F)
D = json.decode(json.encode(deep(99)))
print(deep(10))
contribute()
`
	if _, err := NewActivator(Options{}).Activate(context.Background(), request(ok, &noteLog{})); err != nil {
		t.Fatal(err)
	}
}

// A string doubled in a loop is stopped before a step allocates past the
// budget: `+` is guarded like `*`, and a large allocation is checked
// against what the run's heap already holds. Without the guard the heap
// overshot memory_limit about 8-fold (each doubling is one step).
func TestResourceExhausted_DoublingWithinBudget(t *testing.T) {
	const limit = 64 << 20
	for _, body := range []string{"s = s + s", "s += s", "l = l + l"} {
		t.Run(body, func(t *testing.T) {
			src := "def grow(ctx, args):\n    s = \"x\"\n    l = [0]\n    for i in range(40):\n        " + body +
				"\n    return str(len(s))\n\ncontribute(tools = [tool(name = \"grow\", catalogs = \"work\", run = grow)])\n"
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, _ := runTool(t, Options{MemoryLimit: limit}, src)
			runtime.ReadMemStats(&after)
			if res.Err == nil || res.Err.Code != contrib.ErrToolFailed || !strings.HasPrefix(res.Err.Message, "memory_limit 64MiB exceeded at plugin.star:5:") {
				t.Errorf("%s: result %+v; want tool_failed: memory_limit 64MiB exceeded at plugin.star:5:…", body, res.Err)
			}
			// The doubling allocates 1+2+4+… bytes: all of it stays under two
			// budgets when the step that would cross the budget is refused.
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 2*limit+8<<20 {
				t.Errorf("%s: the run allocated %d MiB in all with a 64 MiB budget", body, grew>>20)
			}
		})
	}
}
