package starhost

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/safefile"
)

// The owner records read per activation are cached by the file's identity,
// modification time and size: an unchanged file is not read again, and a
// file replaced (as claims write it), rewritten with a new time, or grown
// is read afresh.
func TestDataOwners_ChangedFileIsReread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugin-owners.json")
	var c ownersCache
	records := func(owner string) []byte { return []byte(`{"owners": {"tools": "` + owner + `"}}` + "\n") }
	owner := func() string {
		t.Helper()
		o, err := c.read(path)
		if err != nil {
			t.Fatal(err)
		}
		return o.Owners["tools"]
	}
	if err := safefile.WriteFile(path, records("acme.a"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	mtime := st.ModTime()
	if got := owner(); got != "acme.a" {
		t.Fatalf("first read: %q", got)
	}

	inPlace := func(path string, data []byte, mode os.FileMode) error { return os.WriteFile(path, data, mode) }
	for _, step := range []struct {
		what  string
		write func(string, []byte, os.FileMode) error
		owner string
		mtime time.Time
		want  string
	}{
		// Same file, same time, same size: the cache answers (the file,
		// changed behind the cache's back with its time put back, is not
		// read).
		{"unchanged file", inPlace, "acme.x", mtime, "acme.a"},
		// Replaced atomically, even with the same size and time: a new file.
		{"replaced file", safefile.WriteFile, "acme.b", mtime, "acme.b"},
		{"rewritten with another time", inPlace, "acme.c", mtime.Add(time.Second), "acme.c"},
		{"grown with the same time", inPlace, "acme.longer", mtime.Add(time.Second), "acme.longer"},
	} {
		if err := step.write(path, records(step.owner), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, step.mtime, step.mtime); err != nil {
			t.Fatal(err)
		}
		if got := owner(); got != step.want {
			t.Errorf("%s: read %q, want %q", step.what, got, step.want)
		}
	}

	// Removed: no records, and a garbage file is refused, not cached.
	os.Remove(path)
	if got := owner(); got != "" {
		t.Errorf("removed file: %q", got)
	}
	if err := os.WriteFile(path, []byte("{garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.read(path); err == nil {
		t.Error("garbage records read without error")
	}
}

// BenchmarkDataOwners reads an owner record file of 50 records as each
// activation does: uncached (readDataOwners) and through the cache.
func BenchmarkDataOwners(b *testing.B) {
	path := filepath.Join(b.TempDir(), "plugin-owners.json")
	data := []byte(`{"owners": {`)
	for i := range 50 {
		if i > 0 {
			data = append(data, ',')
		}
		data = append(data, []byte(`"dir`+string(rune('a'+i%26))+string(rune('a'+i/26))+`": "acme.plugin"`)...)
	}
	data = append(data, []byte("}}\n")...)
	if err := safefile.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := readDataOwners(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		var c ownersCache
		for b.Loop() {
			if _, err := c.read(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}
