package lifecycle

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

func identity(dir string) string { return dir }

type candidateFacts struct {
	Name     string
	ID       string
	Source   contrib.Source
	Rank     int
	Shadowed bool
}

func facts(cs []*Candidate) []candidateFacts {
	out := make([]candidateFacts, len(cs))
	for i, c := range cs {
		out[i] = candidateFacts{c.Name, c.ID(), c.Source, c.Rank, c.Shadowed}
	}
	return out
}

func TestAT4_OverlayAndPriority(t *testing.T) {
	project, home, builtin := t.TempDir(), t.TempDir(), t.TempDir()
	testkit.Plugin{ID: "acme.review", Version: "2.0.0"}.Write(t, filepath.Join(project, "review"))
	testkit.Plugin{ID: "acme.lint"}.Write(t, filepath.Join(project, "lint"))
	// Replaced wholesale by the project's "review" directory, even with another id.
	testkit.Plugin{ID: "acme.review-home"}.Write(t, filepath.Join(home, "review"))
	// Same id as the project's lint, in another directory: shadowed.
	testkit.Plugin{ID: "acme.lint", Version: "0.9.0"}.Write(t, filepath.Join(home, "linter"))
	testkit.Plugin{ID: "acme.notes"}.Write(t, filepath.Join(home, "notes"))
	testkit.Plugin{ID: "acme.hidden"}.Write(t, filepath.Join(home, ".hidden"))
	testkit.Plugin{ID: "crystal.core"}.Write(t, filepath.Join(builtin, "core"))
	testkit.WriteTree(t, home, map[string]string{"README.md": "not a plugin"})

	cs := Discover([]Root{
		{Dir: project, Source: contrib.SourceProject},
		{Dir: filepath.Join(t.TempDir(), "missing"), Source: contrib.SourceDev},
		{Dir: home, Source: contrib.SourceHome},
		{Dir: builtin, Source: contrib.SourceBuiltin},
	}, identity)

	want := []candidateFacts{
		{"lint", "acme.lint", contrib.SourceProject, 0, false},
		{"review", "acme.review", contrib.SourceProject, 1, false},
		{"linter", "acme.lint", contrib.SourceHome, 2, true},
		{"notes", "acme.notes", contrib.SourceHome, 3, false},
		{"core", "crystal.core", contrib.SourceBuiltin, 4, false},
	}
	if got := facts(cs); !slices.Equal(got, want) {
		t.Fatalf("candidates:\n got %+v\nwant %+v", got, want)
	}
	linter := cs[2]
	if len(linter.Diagnostics) != 1 {
		t.Fatalf("linter diagnostics = %v, want one DuplicatePluginId", linter.Diagnostics)
	}
	d := linter.Diagnostics[0]
	if d.Code != contrib.DuplicatePluginID || d.Plugin != "acme.lint" || d.Pos.File != linter.Dir+"/"+ManifestName {
		t.Errorf("diagnostic = %+v", d)
	}
	if cs[0].Dir != filepath.Join(project, "lint") || cs[0].Display != cs[0].Dir {
		t.Errorf("dir/display = %q %q", cs[0].Dir, cs[0].Display)
	}
	if len(cs[0].Diagnostics) != 0 {
		t.Errorf("the winning copy has diagnostics: %v", cs[0].Diagnostics)
	}
}

func TestAT4_DevRootIsAPluginDir(t *testing.T) {
	dev := filepath.Join(t.TempDir(), "my-plugin")
	testkit.Plugin{ID: "me.tool", Version: "0.1.0"}.Write(t, dev)
	// A plugin-looking subdirectory of a plugin directory is not a second plugin.
	testkit.Plugin{ID: "me.vendor", Version: "0.1.0"}.Write(t, filepath.Join(dev, "vendor"))
	home := t.TempDir()
	testkit.Plugin{ID: "me.tool", Version: "0.0.1"}.Write(t, filepath.Join(home, "tool"))

	cs := Discover([]Root{{Dir: dev, Source: contrib.SourceDev}, {Dir: home, Source: contrib.SourceHome}},
		func(d string) string { return filepath.Base(d) })
	want := []candidateFacts{
		{"my-plugin", "me.tool", contrib.SourceDev, 0, false},
		{"tool", "me.tool", contrib.SourceHome, 1, true},
	}
	if got := facts(cs); !slices.Equal(got, want) {
		t.Fatalf("candidates:\n got %+v\nwant %+v", got, want)
	}
	if cs[0].Display != "my-plugin" || cs[0].Manifest.Entry != "plugin.star" {
		t.Errorf("dev candidate: %+v", cs[0])
	}
	// Only a dev root may itself be a plugin directory.
	cs = Discover([]Root{{Dir: dev, Source: contrib.SourceHome}}, identity)
	if got := facts(cs); len(got) != 1 || got[0].ID != "me.vendor" {
		t.Errorf("home root = plugin dir: %+v, want only its vendor subdirectory", got)
	}
}

func TestAT4_DiscoveryReportsBrokenPlugins(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, filepath.Join(root, "empty"), map[string]string{"README": "x"})
	testkit.WriteTree(t, filepath.Join(root, "noentry"), map[string]string{ManifestName: "id = \"a.b\"\nversion = \"1.0.0\"\nentry = \"main.star\"\n"})
	testkit.WriteTree(t, filepath.Join(root, "badtoml"), map[string]string{ManifestName: "id = \n"})

	cs := Discover([]Root{{Dir: root, Source: contrib.SourceHome}}, identity)
	byName := map[string]*Candidate{}
	for _, c := range cs {
		byName[c.Name] = c
		if c.Manifest != nil {
			t.Errorf("%s: broken plugin has a manifest", c.Name)
		}
		if c.ID() != c.Name {
			t.Errorf("%s: ID() = %q, want the directory name", c.Name, c.ID())
		}
	}
	check := func(name string, code contrib.Code, line int) {
		t.Helper()
		c := byName[name]
		if c == nil || len(c.Diagnostics) != 1 || c.Diagnostics[0].Code != code {
			t.Fatalf("%s: diagnostics = %v, want %s", name, c.Diagnostics, code)
		}
		if line > 0 && c.Diagnostics[0].Pos.Line != line {
			t.Errorf("%s: pos %v, want line %d", name, c.Diagnostics[0].Pos, line)
		}
	}
	check("empty", contrib.ManifestMissing, 0)
	check("noentry", contrib.EntryMissing, 3)
	check("badtoml", contrib.ManifestSyntax, 1)
	if r := byName["empty"].Diagnostics[0].Remedy; r == "" {
		t.Errorf("ManifestMissing has no remedy")
	}
}

// TestFindAnswersForOneID proves Find returns the copy of a plugin that
// serves its id: the higher root's over a shadowed one, a usable manifest
// over a broken directory that only names the id, and nil for an unknown id.
func TestFindAnswersForOneID(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	testkit.Plugin{ID: "acme.lint", Version: "1.0.0"}.Write(t, filepath.Join(project, "lint"))
	testkit.Plugin{ID: "acme.lint", Version: "0.9.0"}.Write(t, filepath.Join(home, "linter"))
	testkit.WriteTree(t, filepath.Join(project, "acme.notes"), map[string]string{ManifestName: "id = \n"})
	testkit.Plugin{ID: "acme.notes", Version: "1.0.0"}.Write(t, filepath.Join(home, "notes"))
	testkit.WriteTree(t, filepath.Join(home, "acme.broken"), map[string]string{ManifestName: "id = \n"})
	roots := []Root{{Dir: project, Source: contrib.SourceProject}, {Dir: home, Source: contrib.SourceHome}}
	for _, c := range []struct{ id, dir string }{
		{"acme.lint", filepath.Join(project, "lint")},
		{"acme.notes", filepath.Join(home, "notes")},
		{"acme.broken", filepath.Join(home, "acme.broken")},
		{"acme.missing", ""},
	} {
		t.Run(c.id, func(t *testing.T) {
			got := Find(roots, identity, c.id)
			switch {
			case c.dir == "" && got != nil:
				t.Errorf("Find = %s, want nil", got.Dir)
			case c.dir != "" && (got == nil || got.Dir != c.dir):
				t.Errorf("Find = %v, want %s", got, c.dir)
			}
		})
	}
}
