package lifecycle

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

func TestDC23_BundleSnapshotIsImmutable(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteTree(t, dir, map[string]string{
		ManifestName:          "id = \"a.b\"\nversion = \"1.0.0\"\n",
		"plugin.star":         "contribute()\n",
		"lib/util.star":       "x = 1\n",
		"desktop/app.js":      "ui",
		"desktop/deep/x.star": "ui",
		"docs/desktop/ok.md":  "only the top-level desktop/ is left out",
		builtinMarker:         "",
		"lib/.builtin":        "only the top-level marker is left out",
	})

	outside := t.TempDir()
	testkit.WriteTree(t, outside, map[string]string{"secret.star": "secret", "d/inner.star": "inner"})
	for link, target := range map[string]string{
		"linked.star": filepath.Join(outside, "secret.star"),
		"linked-dir":  filepath.Join(outside, "d"),
		"alias.star":  filepath.Join(dir, "plugin.star"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}

	b, err := ReadBundle(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"docs/desktop/ok.md", "lib/.builtin", "lib/util.star", "plugin.star", ManifestName}
	if got := b.paths(); !slices.Equal(got, want) {
		t.Fatalf("paths = %v\nwant %v", got, want)
	}

	// The directory changes under the snapshot.
	testkit.WriteTree(t, dir, map[string]string{"plugin.star": "fail('changed')\n", "new.star": "new"})
	if err := os.Remove(filepath.Join(dir, "lib", "util.star")); err != nil {
		t.Fatal(err)
	}
	if data, err := b.ReadFile("plugin.star"); err != nil || string(data) != "contribute()\n" {
		t.Errorf("plugin.star = %q, %v; want the bytes read at snapshot time", data, err)
	}
	if _, err := b.ReadFile("lib/util.star"); err != nil {
		t.Errorf("a file removed from disk vanished from the snapshot: %v", err)
	}
	if _, err := b.ReadFile("new.star"); !isNotExist(err) {
		t.Errorf("a file created after the snapshot is visible: %v", err)
	}

	// Callers cannot change the snapshot through what it hands out.
	data, _ := b.ReadFile("plugin.star")
	data[0] = 'X'
	f, err := b.Open("plugin.star")
	if err != nil {
		t.Fatal(err)
	}
	read, _ := io.ReadAll(f)
	if string(read) != "contribute()\n" {
		t.Errorf("Open after mutating a ReadFile result = %q", read)
	}
	if st, _ := f.Stat(); st.Name() != "plugin.star" || st.Size() != int64(len(read)) || st.IsDir() || st.Mode()&0o222 != 0 {
		t.Errorf("stat = %v %d %v %v", st.Name(), st.Size(), st.IsDir(), st.Mode())
	}
	f.Close()

	for _, name := range []string{"desktop/app.js", ".builtin", "linked.star", "/plugin.star", "./plugin.star", "lib", "missing"} {
		if _, err := b.Open(name); !isNotExist(err) {
			t.Errorf("Open(%q) err = %v, want not-exist", name, err)
		}
	}
	if _, err := fs.ReadFile(b, "lib/util.star"); err != nil {
		t.Errorf("fs.ReadFile through the FS interface: %v", err)
	}
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

func TestDC23_BundleSizeLimit(t *testing.T) {
	dir := t.TempDir()
	big := make([]byte, maxBundleBytes/2+1)
	for _, n := range []string{"a.bin", "b.bin"} {
		if err := os.WriteFile(filepath.Join(dir, n), big, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ReadBundle(dir); err == nil {
		t.Error("a bundle over MaxBundleBytes was read")
	}
}

func TestDC23_SymlinkedPluginDirIsRead(t *testing.T) {
	real := filepath.Join(t.TempDir(), "real")
	testkit.Plugin{ID: "me.tool", Version: "0.1.0"}.Write(t, real)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	b, err := ReadBundle(link)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.paths(); !slices.Equal(got, []string{"plugin.star", ManifestName}) {
		t.Errorf("paths = %v, want the plugin's files", got)
	}
}

// TestDC23_StartSnapshotHoldsTheParsedManifest: Start reuses the
// plugin.toml bytes discovery parsed instead of reading the file again, so
// the snapshot (and its fingerprint) holds exactly the manifest in force;
// every other file is read from disk as usual.
func TestDC23_StartSnapshotHoldsTheParsedManifest(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteTree(t, dir, map[string]string{ManifestName: "on disk", "plugin.star": "src", "lib/" + ManifestName: "nested"})
	b, err := readBundle(dir, ManifestName, []byte("parsed"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{ManifestName: "parsed", "plugin.star": "src", "lib/" + ManifestName: "nested"} {
		if got, _ := b.ReadFile(name); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// TestDC18_FingerprintRememberedPerManifest: a snapshot computes its
// fingerprint once per manifest; another manifest (here another version)
// gets its own.
func TestDC18_FingerprintRememberedPerManifest(t *testing.T) {
	b := NewBundle(map[string][]byte{"plugin.star": []byte("contribute()\n")})
	m1, _ := ParseManifest("plugin.toml", []byte("id = \"acme.x\"\nversion = \"1.0.0\"\n"), "x")
	m2, _ := ParseManifest("plugin.toml", []byte("id = \"acme.x\"\nversion = \"1.0.1\"\n"), "x")
	fp1 := Fingerprint(m1, b)
	if again := Fingerprint(m1, b); again != fp1 {
		t.Fatalf("same manifest: %s then %s", fp1, again)
	}
	fp2 := Fingerprint(m2, b)
	if fp2 == fp1 {
		t.Fatalf("another version, the same fingerprint %s", fp1)
	}
	if fresh := Fingerprint(m1, NewBundle(b.Files())); fresh != fp1 {
		t.Fatalf("the same content in a new snapshot: %s, want %s", fresh, fp1)
	}
}
