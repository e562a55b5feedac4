package testkit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
)

// GoFiles parses the non-test Go files of one package directory, for tests
// that hold the code to a rule (no init functions, no alias on an API). It
// fails the test when the directory holds none or one does not parse.
func GoFiles(tb TB, dir string) (*token.FileSet, []*ast.File) {
	tb.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		tb.Fatalf("%v", err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			tb.Fatalf("%v", err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		tb.Fatalf("no Go files in %s", dir)
	}
	return fset, files
}
