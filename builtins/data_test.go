package builtins

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// dataFixture is a data directory next to a directory it must never reach,
// with symlinks out of it.
type dataFixture struct {
	dir, outside string
}

func newDataFixture(t *testing.T) dataFixture {
	t.Helper()
	root := t.TempDir()
	f := dataFixture{dir: filepath.Join(root, "data"), outside: filepath.Join(root, "outside")}
	for _, d := range []string{f.dir, f.outside, filepath.Join(f.dir, "notes")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(f.outside, "secret"), "top secret")
	write(filepath.Join(f.dir, "notes", "a.md"), "note a")
	links := map[string]string{
		"out":        f.outside,                           // a directory outside
		"leak":       filepath.Join(f.outside, "secret"),  // a file outside
		"up":         "..",                                // a relative escape
		"notes/back": "../../outside/secret",              // a nested relative escape
		"inside":     "notes/a.md",                        // stays inside: allowed
		"dangling":   filepath.Join(f.outside, "no-such"), // outside and missing
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(f.dir, name)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	return f
}

// CC30: every path is relative to the data directory and stays inside it.
// These are the hostile cases: each is refused with a clear error and
// touches nothing outside.
func TestCC30_DataPathsAreConfined(t *testing.T) {
	f := newDataFixture(t)
	d := confinedDir{dir: f.dir, scope: "project"}
	cases := []struct {
		name string
		op   func() error
		want string
	}{
		{"dot-dot", func() error { _, err := d.read("../outside/secret"); return err }, `".." is not allowed`},
		{"dot-dot inside a path", func() error { _, err := d.read("notes/../../outside/secret"); return err }, `"..`},
		{"dot-dot that would stay inside", func() error { _, err := d.read("notes/../notes/a.md"); return err }, `".." is not allowed`},
		{"absolute", func() error { _, err := d.read(filepath.Join(f.outside, "secret")); return err }, "absolute paths are not allowed"},
		{"double slash", func() error { _, err := d.read("//etc/passwd"); return err }, "absolute paths are not allowed"},
		{"backslash", func() error { _, err := d.read(`..\outside\secret`); return err }, "use / to separate"},
		{"NUL byte", func() error { _, err := d.read("notes/a.md\x00.txt"); return err }, "NUL byte"},
		{"empty", func() error { _, err := d.read(""); return err }, "the path is empty"},
		{"the directory itself", func() error { return d.write(".", []byte("x")) }, "names the project data directory itself"},
		{"symlinked directory", func() error { _, err := d.read("out/secret"); return err }, "leads outside the project data directory"},
		{"symlinked file", func() error { _, err := d.read("leak"); return err }, "leads outside"},
		{"relative symlink", func() error { _, err := d.read("up/outside/secret"); return err }, "leads outside"},
		{"nested relative symlink", func() error { _, err := d.read("notes/back"); return err }, "leads outside"},
		{"write through a symlinked directory", func() error { return d.write("out/planted", []byte("x")) }, "leads outside"},
		{"write over a symlink to a missing outside file", func() error { return d.write("dangling/x", []byte("x")) }, ""},
		{"list outside", func() error { _, err := d.list("out"); return err }, "leads outside"},
		{"list dot-dot", func() error { _, err := d.list(".."); return err }, `".." is not allowed`},
		{"exists outside", func() error { _, err := d.exists("out/secret"); return err }, "leads outside"},
		{"remove outside", func() error { return d.remove("out/secret") }, "leads outside"},
		{"remove dot-dot", func() error { return d.remove("../outside/secret") }, `".." is not allowed`},
		{"remove absolute", func() error { return d.remove("/tmp") }, "absolute paths"},
	}
	if len(cases) < 10 {
		t.Fatalf("want at least ten hostile cases")
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.op()
			if err == nil {
				t.Errorf("%s: allowed", tc.name)
				return
			}
			if tc.want != "" && !strings.Contains(err.Error(), tc.want) && !strings.Contains(err.Error(), strings.Trim(tc.want, `"`)) {
				t.Errorf("%s: %v; want it to say %s", tc.name, err, tc.want)
			}
			if strings.Contains(err.Error(), f.dir) {
				t.Errorf("%s: the error shows the directory's path: %v", tc.name, err)
			}
		})
	}
	// Nothing outside changed.
	entries, _ := os.ReadDir(f.outside)
	if len(entries) != 1 {
		t.Errorf("outside now holds %d entries", len(entries))
	}
	if data, _ := os.ReadFile(filepath.Join(f.outside, "secret")); string(data) != "top secret" {
		t.Errorf("the outside file changed: %q", data)
	}
	// A symlink that stays inside is followed.
	if data, err := d.read("inside"); err != nil || string(data) != "note a" {
		t.Errorf("inside link: %q, %v", data, err)
	}
}

// CC30: write is atomic (no temporary file left, parents created), list
// sorts and marks directories, remove deletes a file or a symlink (never
// its target), and sizes are bounded.
func TestCC30_DataOperations(t *testing.T) {
	f := newDataFixture(t)
	d := confinedDir{dir: f.dir, scope: "global"}
	if err := d.write("deep/er/file.txt", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := d.write("deep/er/file.txt", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if data, err := d.read("deep/er/file.txt"); err != nil || string(data) != "two" {
		t.Errorf("read = %q, %v", data, err)
	}
	names, err := d.list("deep/er")
	if err != nil || strings.Join(names, ",") != "file.txt" {
		t.Errorf("list = %v, %v (a temporary file left?)", names, err)
	}
	if names, _ := d.list(""); strings.Join(names, ",") != "dangling,deep/,inside,leak,notes/,out,up" {
		t.Errorf("list root = %v", names)
	}
	if ok, err := d.exists("deep/er/file.txt"); !ok || err != nil {
		t.Errorf("exists = %v, %v", ok, err)
	}
	if ok, err := d.exists("nope"); ok || err != nil {
		t.Errorf("exists(nope) = %v, %v", ok, err)
	}
	if err := d.remove("leak"); err != nil {
		t.Errorf("remove a symlink: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.outside, "secret")); err != nil {
		t.Errorf("removing the link removed its target: %v", err)
	}
	if err := d.remove("deep"); err == nil {
		t.Errorf("removed a non-empty directory")
	}
	if _, err := d.read("missing"); err == nil || err.Error() != `"missing" does not exist in the global data directory` {
		t.Errorf("missing: %v", err)
	}
	big := make([]byte, maxDataFileSize+1)
	if err := d.write("big", big); err == nil || !strings.Contains(err.Error(), "larger than the limit") {
		t.Errorf("oversized write: %v", err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "big"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.read("big"); err == nil || !strings.Contains(err.Error(), "larger than the limit") {
		t.Errorf("oversized read: %v", err)
	}
}

// CC29, CC30: with the data capability attach_data_dirs(ctx, global,
// project) runs and tools see the same two directories on ctx.data;
// without it neither exists.
func TestCC29_AttachDataDirs(t *testing.T) {
	src := `
def attach_data_dirs(ctx, global_dir, project_dir):
    global_dir.write("seen.txt", "attached " + global_dir.scope)
    project_dir.write("p/seen.txt", project_dir.scope)

def look(ctx, args):
    if not hasattr(ctx, "data"):
        return "no data"
    return "%s|%s|%s" % (ctx.data.global_dir.read("seen.txt"), ctx.data.project_dir.read("p/seen.txt"), ctx.data.project_dir.list())

contribute(tools = [tool(name = "look", catalogs = "work", run = look)], attach_data_dirs = attach_data_dirs)
`
	h := &fakeHost{global: t.TempDir(), project: t.TempDir()}
	inst := activate(t, h, src, contrib.SourceDev, "data")
	if ran, err := inst.Attach(context.Background(), contrib.AttachDataDirs); !ran || err != nil {
		t.Fatalf("attach_data_dirs: %v, %v", ran, err)
	}
	if got := callTool(t, inst, "look"); got != `attached global|project|["p/"]` {
		t.Errorf("look = %s", got)
	}
	plain := activate(t, &fakeHost{global: t.TempDir(), project: t.TempDir()}, src, contrib.SourceDev)
	if ran, _ := plain.Attach(context.Background(), contrib.AttachDataDirs); ran {
		t.Errorf("attach_data_dirs ran without the data capability")
	}
	if got := callTool(t, plain, "look"); got != "no data" {
		t.Errorf("without the capability: %s", got)
	}
	var _ starlark.Value = &dataDir{}
}
