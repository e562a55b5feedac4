package check

import (
	"testing"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

func parse(t *testing.T, name, src string) *syntax.File {
	t.Helper()
	f, err := builtins.Dialect.Parse(name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRunReportsEveryBadCallAtOnce proves the constructor checks find every
// bad call of a file in one run, each at its argument, and list each call's
// parenthesis in Broken so that the dry run's one failure can be dropped.
func TestRunReportsEveryBadCallAtOnce(t *testing.T) {
	src := `def run(ctx, args):
    return "ok"

contribute(tools = [
    tool(name = "a", catalogs = "work", run = run, readonly = True),
    tool(name = "b", catalogs = "wrok", run = run),
    tool(name = "c", catalogs = "work", run = "run"),
])
`
	res := Run(Bundle{Plugin: "acme.t", Files: map[string]*syntax.File{"plugin.star": parse(t, "p/plugin.star", src)}})
	var got []string
	for _, d := range res.Diagnostics {
		if d.Code != contrib.ArgumentInvalid {
			t.Errorf("unexpected %s", d)
		}
		got = append(got, d.Pos.String())
	}
	want := []string{"p/plugin.star:5:52", "p/plugin.star:6:33", "p/plugin.star:7:47"}
	if len(got) != len(want) {
		t.Fatalf("findings at %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("finding %d at %s; want %s", i, got[i], want[i])
		}
	}
	if len(res.Broken) != 3 || res.Broken[0] != (contrib.Pos{File: "p/plugin.star", Line: 5, Col: 9}) {
		t.Errorf("Broken = %v; want the three calls' parentheses", res.Broken)
	}
}

// TestRunLeavesValidCodeAlone: shadowed constructor names, callbacks that
// take *args, a helper whose first parameter is not ctx, and non-literal
// arguments are no findings.
func TestRunLeavesValidCodeAlone(t *testing.T) {
	src := `def tool(**kw):
    return kw

def anything(*args):
    return "ok"

def helper(c):
    return c.whatever

def unfinished(ctx):
    fail("not written yet")

name = "x"
contribute(
    tools = [tool(nam = 1)],
    commands = [command(name = name, run = anything)],
    placeholders = [
        placeholder(name = name, resolve = lambda ctx: ctx.site or helper(ctx)),
        placeholder(name = "todo", resolve = unfinished),
    ],
)
`
	res := Run(Bundle{Plugin: "acme.t", Files: map[string]*syntax.File{"plugin.star": parse(t, "p/plugin.star", src)}})
	for _, d := range res.Diagnostics {
		t.Errorf("unexpected %s", d)
	}
}

// TestDC6_CheckReportsReservedErrorCodes: a literal code the host reserves
// in error(...) is a finding at the code; a plugin's own code and a
// computed one are not.
func TestDC6_CheckReportsReservedErrorCodes(t *testing.T) {
	src := `def run(ctx, args):
    if args:
        return error("tool_unavailable", "try again")
    code = "tool_failed"
    return error("not_found", "nothing") or error(code, "computed")
`
	res := Run(Bundle{Plugin: "acme.t", Files: map[string]*syntax.File{"plugin.star": parse(t, "p/plugin.star", src)}})
	if len(res.Diagnostics) != 1 {
		t.Fatalf("findings %v; want one", res.Diagnostics)
	}
	d := res.Diagnostics[0]
	if d.Code != contrib.ArgumentInvalid || d.Pos.String() != "p/plugin.star:3:22" ||
		d.Message != `error("tool_unavailable", ...): the code is reserved for the host, which produces it itself; the call would fail as tool_failed. Choose a code of your own` {
		t.Errorf("finding %s (%q)", d, d.Message)
	}
}
