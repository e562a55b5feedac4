package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPathsPlaceEveryFile pins where each file lives (docs/lifecycle.md,
// "Files and places"): the home's files at its top level, the workspace's
// under .crystal, and the trust and providers files in the home only.
func TestPathsPlaceEveryFile(t *testing.T) {
	p := Paths{Home: "/h", Workspace: "/w"}
	global, project := p.Data("review")
	globalOwners, projectOwners := p.DataOwners()
	for _, c := range []struct{ what, got, want string }{
		{"home config", p.Config(false), "/h/config.toml"},
		{"workspace config", p.Config(true), "/w/.crystal/config.toml"},
		{"trust file", p.Trust(), "/h/plugin-trust.json"},
		{"ignored workspace trust file", p.WorkspaceTrust(), "/w/.crystal/plugin-trust.json"},
		{"providers", p.Providers(), "/h/providers.json"},
		{"home plugins", p.Plugins(false), "/h/plugins"},
		{"workspace plugins", p.Plugins(true), "/w/.crystal/plugins"},
		{"global data", global, "/h/data/plugins/review"},
		{"project data", project, "/w/.crystal/data/plugins/review"},
		{"global data owners", globalOwners, "/h/data/plugin-owners.json"},
		{"project data owners", projectOwners, "/w/.crystal/data/plugin-owners.json"},
		{"commands", p.Commands(), "/w/.crystal/commands"},
	} {
		if c.got != filepath.FromSlash(c.want) {
			t.Errorf("%s = %s, want %s", c.what, c.got, c.want)
		}
	}
	if got, want := p.Skills(), []string{filepath.FromSlash("/w/.crystal/skills"), filepath.FromSlash("/h/skills")}; !slices.Equal(got, want) {
		t.Errorf("skills = %v, want %v (workspace first)", got, want)
	}
	if got := p.ConfigLayers(); !slices.Equal(got, []string{p.Config(false), p.Config(true)}) {
		t.Errorf("config layers = %v, want home then workspace", got)
	}
}

func TestDefaultHome(t *testing.T) {
	t.Setenv("CRYSTAL_HOME", "/somewhere")
	if got := DefaultHome(); got != "/somewhere" {
		t.Errorf("with $CRYSTAL_HOME, DefaultHome = %s", got)
	}
	t.Setenv("CRYSTAL_HOME", "")
	if got := DefaultHome(); filepath.Base(got) != Dir {
		t.Errorf("DefaultHome = %s, want ~/%s", got, Dir)
	}
}

// TestNoOtherFileSpellsAPath proves this package is the one place that
// knows the on-disk names: no non-test Go file elsewhere in the module has
// a string literal that is one of them, or passes one of them, or a
// ".crystal/..." path, to filepath.Join. Messages may name a file
// ("providers.json is not valid JSON"); only paths are built here.
func TestNoOtherFileSpellsAPath(t *testing.T) {
	names := []string{Dir, ConfigFile, TrustFile, ProvidersFile, DataOwnersFile}
	dirs := []string{PluginsDir, SkillsDir, CommandsDir, DataDir}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root:
			return filepath.SkipDir
		case d.IsDir() && path == filepath.Join(root, "internal", "layout"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				// starhost.ProvidersFile spells the name so go doc shows it
				// to embedders (issue 24, point 12); starhost's
				// TestH24_12_ProvidersFileIsLayouts holds it equal to ours.
				if filepath.ToSlash(path) == filepath.ToSlash(filepath.Join(root, "starhost", "providers.go")) &&
					len(n.Names) == 1 && n.Names[0].Name == "ProvidersFile" {
					return false
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING &&
					(slices.Contains(names, s) || strings.HasPrefix(s, Dir+"/")) {
					t.Errorf("%s: %q is an on-disk name; use internal/layout", fset.Position(n.Pos()), s)
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Join" {
					for _, arg := range n.Args {
						if lit, ok := arg.(*ast.BasicLit); ok {
							if s, _ := strconv.Unquote(lit.Value); slices.Contains(dirs, s) {
								t.Errorf("%s: Join(..., %q, ...) builds an on-disk path; use internal/layout", fset.Position(lit.Pos()), s)
							}
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files; the walk lost the module", checked)
	}
}
