package check_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// checkOne checks one plugin of source src and returns its findings.
func checkOne(t *testing.T, src string, files map[string]string) []starhost.Note {
	t.Helper()
	dir := t.TempDir()
	testkit.Plugin{ID: "acme.p", Source: src, Files: files}.Write(t, filepath.Join(dir, "p"))
	r, err := check.Plugins(context.Background(), check.Options{Paths: []string{filepath.Join(dir, "p")},
		Options: checkTestOptions(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	return r.Diagnostics
}

// TestH29_2_SchemaErrorAtTheProperty: a JSON-schema error points at the
// bad property's value in the parameters literal, not at tool(.
func TestH29_2_SchemaErrorAtTheProperty(t *testing.T) {
	const src = `def run(ctx, args):
    return "ok"

contribute(tools = [tool(
    name = "summary",
    catalogs = "work",
    parameters = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "count": {"type": "integer", "minimum": "one"},
        },
    },
    run = run,
)])
`
	ds := checkOne(t, src, nil)
	if len(ds) != 1 || ds[0].Code != "ToolSchemaInvalid" || ds[0].Pos.Line != 11 || ds[0].Pos.Col != 53 {
		t.Errorf("findings %v; want one ToolSchemaInvalid at 11:53, the value of minimum", ds)
	}
}

// TestH29_2_ReturnTypeByInference: a wrong return type is found through a
// local variable, a global, a call of the plugin's own function, a string
// method and a comparison — not only a literal — and a right one that
// takes running the code to know is left alone.
func TestH29_2_ReturnTypeByInference(t *testing.T) {
	const src = `LIMIT = 12

def count(text):
    return len(text)

def a(ctx):
    n = count(ctx.model)
    return n

def b(ctx):
    return LIMIT

def c(ctx):
    return ctx.model == ""

def d(ctx):
    s = "model: "
    s += ctx.model
    return s.upper()

def e(ctx):
    return ctx.store.get("x")

contribute(placeholders = [placeholder(name = n, resolve = f) for n, f in []] + [
    placeholder(name = "a", resolve = a), placeholder(name = "b", resolve = b),
    placeholder(name = "c", resolve = c), placeholder(name = "d", resolve = d),
    placeholder(name = "e", resolve = e),
])
`
	lines := map[int]bool{}
	for _, d := range checkOne(t, src, nil) {
		if d.Code == "CallbackReturn" {
			lines[d.Pos.Line] = true
		}
	}
	for _, want := range []int{8, 11, 14} {
		if !lines[want] {
			t.Errorf("no CallbackReturn at line %d; got %v", want, lines)
		}
	}
	if len(lines) != 3 {
		t.Errorf("CallbackReturn at lines %v; want 8, 11 and 14 only", lines)
	}
}

// TestH29_2_StaticRunsNoPluginCode: Options.Static (the dev console's
// check after a load) compiles and lints but runs no plugin code and
// starts no worker.
func TestH29_2_StaticRunsNoPluginCode(t *testing.T) {
	dir := t.TempDir()
	testkit.Plugin{ID: "acme.p", Source: "def words(ctx):\n    return len(ctx.model)\n\nfail(\"top level ran\")\ncontribute(placeholders = [placeholder(name = \"w\", resolve = words)])\n"}.Write(t, filepath.Join(dir, "p"))
	w, started := countingWorkers(t)
	r, err := check.Plugins(context.Background(), check.Options{Paths: []string{filepath.Join(dir, "p")},
		Options: checkTestOptions(t, dir), Workers: w, Static: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Code != "CallbackReturn" {
		t.Errorf("findings %v; want the CallbackReturn only (no ExecutionFailed: the top level does not run)", r.Diagnostics)
	}
	if n := started.Load(); n != 0 {
		t.Errorf("%d worker processes started; want none", n)
	}
}
