package builtins

import (
	"go/ast"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// The wiring of wiring.go is the whole of what a plugin sees only if no
// other file adds to it and no row silently overwrites another. Together
// with TestAPIDocPredeclaredTable (every predeclared name is in docs/api.md)
// and TestAPIDocCtxFields, these tests keep the table complete.

// TestWiringTableNamesEachNameOnce proves no two rows of predeclaredTable,
// and no row and a name generated from the point table, share a name: a
// map would keep the last and drop the other without a word.
func TestWiringTableNamesEachNameOnce(t *testing.T) {
	seen := pointPredeclared()
	for _, e := range predeclaredTable {
		if seen.Has(e.name) {
			t.Errorf("predeclared %q is wired twice", e.name)
		}
		seen[e.name] = e.value
	}
	if len(seen) != len(Predeclared()) {
		t.Errorf("the tables give %d names, Predeclared %d", len(seen), len(Predeclared()))
	}
	kinds := map[string]bool{}
	for _, l := range contributeLists {
		if kinds[l.keyword] {
			t.Errorf("contribute keyword %q is wired twice", l.keyword)
		}
		kinds[l.keyword] = true
		if !IsPredeclared(l.kind) {
			t.Errorf("contribute(%s = ...) takes %s entries, whose constructor is not predeclared", l.keyword, l.kind)
		}
	}
	fields := map[string]bool{}
	for _, f := range ctxFields {
		if fields[f.name] {
			t.Errorf("ctx.%s is wired twice", f.name)
		}
		fields[f.name] = true
	}
}

// TestWiringHasNoInitFunctions proves no file of this package or of the
// CLI registers anything from an init function: the activator's wiring is
// wiring.go alone, the dev console's cmd/crystal-star/console_commands.go.
func TestWiringHasNoInitFunctions(t *testing.T) {
	for _, dir := range []string{".", "../cmd/crystal-star"} {
		for _, f := range initFunctions(t, dir) {
			t.Errorf("%s: func init; add a row to the package's table instead", f)
		}
	}
}

// initFunctions returns the position of every func init in the non-test Go
// files of dir.
func initFunctions(t *testing.T, dir string) []string {
	t.Helper()
	fset, files := testkit.GoFiles(t, dir)
	var found []string
	for _, f := range files {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				found = append(found, fset.Position(fn.Pos()).String())
			}
		}
	}
	return found
}
