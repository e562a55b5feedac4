package check_test

import (
	"go/ast"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// TestReview_NoHandWrittenMapKeys: the keys of a map are maps.Keys from
// the standard library; no package writes its own iterator for them (three
// did: lifecycle, lsp and check).
func TestReview_NoHandWrittenMapKeys(t *testing.T) {
	root := filepath.Join("..", "..")
	dirs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			dirs[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 20 {
		t.Fatalf("found Go files in %d directories only; is %s the module?", len(dirs), root)
	}
	for dir := range dirs {
		fset, files := testkit.GoFiles(t, dir)
		for _, f := range files {
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Recv != nil || !strings.HasSuffix(strings.ToLower(fn.Name.Name), "keys") || fn.Type.Results == nil {
					continue
				}
				if res := fn.Type.Results.List; len(res) == 1 && isIterator(res[0].Type) {
					t.Errorf("%s: %s writes a map's keys by hand; use maps.Keys", fset.Position(fn.Pos()), fn.Name.Name)
				}
			}
		}
	}
}

// isIterator reports whether e is func(func(K) bool), written out or as
// iter.Seq.
func isIterator(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.FuncType:
		return x.Params != nil && len(x.Params.List) == 1 && isYield(x.Params.List[0].Type)
	case *ast.IndexExpr:
		sel, ok := x.X.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Seq"
	}
	return false
}

func isYield(e ast.Expr) bool {
	f, ok := e.(*ast.FuncType)
	return ok && f.Results != nil && len(f.Results.List) == 1
}
