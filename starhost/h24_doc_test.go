package starhost_test

import (
	"context"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit/hostkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// TestH24_12_ExportedValuesSpellTheirOwn proves `go doc starhost` shows
// what each exported constant and variable is, not the name of an internal
// package an embedder cannot import (issue 24, point 12: it showed
// ProvidersFile = layout.ProvidersFile).
func TestH24_12_ExportedValuesSpellTheirOwn(t *testing.T) {
	fset, files := apiFiles(t, ".")
	for _, f := range files {
		imports := map[string]string{}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := filepath.Base(path)
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = path
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST && gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !name.IsExported() || i >= len(vs.Values) {
						continue
					}
					if fs := foreign(vs.Values[i], imports); len(fs) > 0 {
						t.Errorf("%s: exported %s is defined by %v, which go doc shows and an embedder cannot import",
							fset.Position(name.Pos()), name.Name, fs)
					}
				}
			}
		}
	}
}

// TestH24_12_EmbeddingNamesNoInternalIdentifier proves docs/embedding.md
// names no identifier of a package an embedder cannot import (builtins,
// contrib, lifecycle, internal/…) where it describes what to set (issue 24,
// point 12: the Options table named builtins.DefaultMemoryLimit).
func TestH24_12_EmbeddingNamesNoInternalIdentifier(t *testing.T) {
	data, err := os.ReadFile("../docs/embedding.md")
	if err != nil {
		t.Fatal(err)
	}
	internal := regexp.MustCompile("`(?:builtins|contrib|lifecycle|layout|safefile)\\.[A-Z][A-Za-z0-9]*`")
	for _, m := range internal.FindAllIndex(data, -1) {
		line := 1 + countNewlines(data[:m[0]])
		t.Errorf("docs/embedding.md:%d names %s, which an embedder cannot import; name the starhost identifier", line, data[m[0]:m[1]])
	}
}

func countNewlines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

// TestH24_12_UnknownCommandReadsAsDocumented proves ExecuteCommand's error
// for a name nothing has is the text docs/embedding.md shows (issue 24,
// point 12: the code said "no command /deploy").
func TestH24_12_UnknownCommandReadsAsDocumented(t *testing.T) {
	const want = "/deploy: unknown command [unknown_command]"
	data, err := os.ReadFile("../docs/embedding.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "(`"+want+"`)") {
		t.Fatalf("docs/embedding.md no longer shows %q; update this test with it", want)
	}
	h, _ := hostkit.Start(t, starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Dev: []string{onePlugin(t)}})
	_, err = h.Session().ExecuteCommand(context.Background(), "deploy", "")
	if err == nil || err.Error() != want {
		t.Errorf("ExecuteCommand(deploy) = %v; want %q", err, want)
	}
}
