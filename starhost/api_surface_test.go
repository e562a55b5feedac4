package starhost_test

import (
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// module is the import path prefix of this module's own packages.
const module = "github.com/crystal-star/crystal-star/"

// maxHostMethods bounds Host's exported methods: the embedder's surface,
// not the plumbing builtins needs (issue 12: it was 87).
const maxHostMethods = 60

// apiFiles parses the non-test Go files of one directory.
func apiFiles(t *testing.T, dir string) (*token.FileSet, []*ast.File) {
	t.Helper()
	return testkit.GoFiles(t, dir)
}

// foreign lists the selector types of expr that name another package of
// this module (imports maps a file's local package names to their paths).
func foreign(expr ast.Node, imports map[string]string) []string {
	var out []string
	ast.Inspect(expr, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && strings.HasPrefix(imports[id.Name], module) {
				out = append(out, id.Name+"."+sel.Sel.Name)
			}
		}
		return true
	})
	return out
}

// TestAPI_OneImport proves starhost is the one import an embedder needs:
// it declares no type aliases, and no exported function, method, field or
// interface method mentions a type of another package of this module.
func TestAPI_OneImport(t *testing.T) {
	fset, files := apiFiles(t, ".")
	hostMethods := 0
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
		report := func(pos token.Pos, what string, node ast.Node) {
			if refs := foreign(node, imports); len(refs) > 0 {
				t.Errorf("%s: %s mentions %s", fset.Position(pos), what, strings.Join(slices.Compact(refs), ", "))
			}
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if star, ok := recv.(*ast.StarExpr); ok {
						recv = star.X
					}
					if id, ok := recv.(*ast.Ident); !ok || !id.IsExported() {
						continue
					}
					if recv.(*ast.Ident).Name == "Host" {
						hostMethods++
					}
				}
				report(d.Pos(), d.Name.Name, d.Type)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						if s.Assign.IsValid() {
							t.Errorf("%s: type %s is an alias: define starhost's own type", fset.Position(s.Pos()), s.Name.Name)
							continue
						}
						switch ty := s.Type.(type) {
						case *ast.StructType:
							for _, fld := range ty.Fields.List {
								for _, n := range fld.Names {
									if n.IsExported() {
										report(n.Pos(), s.Name.Name+"."+n.Name, fld.Type)
									}
								}
								if len(fld.Names) == 0 {
									report(fld.Pos(), s.Name.Name+" (embedded)", fld.Type)
								}
							}
						case *ast.InterfaceType:
							for _, m := range ty.Methods.List {
								report(m.Pos(), s.Name.Name+" method", m.Type)
							}
						default:
							report(s.Pos(), "type "+s.Name.Name, s.Type)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Type != nil {
								report(n.Pos(), n.Name, s.Type)
							}
						}
					}
				}
			}
		}
	}
	if hostMethods > maxHostMethods {
		t.Errorf("Host has %d exported methods, want at most %d: plumbing belongs on an unexported adapter", hostMethods, maxHostMethods)
	}
	t.Logf("Host has %d exported methods", hostMethods)
}

// TestAPI_EmbeddersImportOnlyStarhost proves the example host and the MCP
// server package need no other package of this module than starhost and
// its model wire glue (starhost/toolwire), and that the glue itself speaks
// starhost's public types (contrib only for the one Arguments rule; the
// internal sandbox package only for the conversion helper it shares with
// starhost, which no embedder can import).
func TestAPI_EmbeddersImportOnlyStarhost(t *testing.T) {
	allowed := map[string][]string{
		"../cmd/agentloop": {"starhost", "starhost/toolwire"},
		"mcpserve":         {"starhost", "starhost/toolwire"},
		"toolwire":         {"starhost", "contrib", "starhost/internal/sandbox"},
	}
	for dir, ok := range allowed {
		_, files := apiFiles(t, dir)
		for _, f := range files {
			for _, im := range f.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				if rest, mine := strings.CutPrefix(path, module); mine && !slices.Contains(ok, rest) {
					t.Errorf("%s imports %s; an embedder needs only %s", dir, path, strings.Join(ok, " and "))
				}
			}
		}
	}
}

// TestAPI_OptionsAreDocumented: every field of Options has its row in the
// Options table of docs/embedding.md, so an embedder finds each one there.
func TestAPI_OptionsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "embedding.md"))
	if err != nil {
		t.Fatal(err)
	}
	opts := reflect.TypeOf(starhost.Options{})
	for i := range opts.NumField() {
		if f := opts.Field(i); f.IsExported() && !strings.Contains(string(doc), "\n| `"+f.Name+"` | `") {
			t.Errorf("docs/embedding.md has no row for Options.%s", f.Name)
		}
	}
}
