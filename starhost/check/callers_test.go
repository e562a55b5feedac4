package check

import (
	"slices"
	"testing"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
)

// TestH29_3_CallbacksAndCtxFields: Callbacks says which callback each def
// and lambda serves, the one the checks use for ctx fields, and CtxFields
// lists what a ctx of those kinds has — the language server's source for
// ctx. completion.
func TestH29_3_CallbacksAndCtxFields(t *testing.T) {
	src := `def run(ctx, args):
    return ""

def helper(ctx):
    return ""

contribute(
    tools = [tool(name = "t", run = run)],
    placeholders = [placeholder(name = "p", resolve = lambda ctx: "")],
)
`
	f, err := builtins.Dialect.Parse("plugin.star", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	roles := Callbacks(Bundle{Files: map[string]*syntax.File{"plugin.star": f}})
	kinds := map[string][]builtins.CtxKind{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.DefStmt:
			kinds[n.Name.Name] = CtxKinds(roles[n])
		case *syntax.LambdaExpr:
			kinds["lambda"] = CtxKinds(roles[n])
		}
		return true
	})
	if !slices.Equal(kinds["run"], []builtins.CtxKind{builtins.CtxTool}) || !slices.Equal(kinds["lambda"], []builtins.CtxKind{builtins.CtxPlaceholder}) ||
		kinds["helper"] != nil {
		t.Errorf("kinds = %v; want run a tool's, the lambda a placeholder's, helper none", kinds)
	}
	names := func(kinds ...builtins.CtxKind) (out []string) {
		for _, m := range CtxFields(kinds) {
			out = append(out, m.Name)
		}
		return out
	}
	if p := names(builtins.CtxPlaceholder); !slices.Contains(p, "site") || slices.Contains(p, "out") {
		t.Errorf("a placeholder's ctx fields = %v", p)
	}
	if all := names(); len(all) != len(builtins.CtxMembers()) {
		t.Errorf("CtxFields() = %v; want every field", all)
	}
}
