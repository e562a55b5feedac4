package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestWriteTreeAndCopyTree(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	WriteTree(t, src, map[string]string{"a.txt": "A", "lib/deep/b.star": "B"})
	if err := CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "A", "lib/deep/b.star": "B"} {
		got, err := os.ReadFile(filepath.Join(dst, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestPluginTree(t *testing.T) {
	for _, c := range []struct {
		name     string
		p        Plugin
		manifest string
		source   string
	}{
		{"defaults", Plugin{ID: "acme.p"}, "id = \"acme.p\"\nversion = \"1.0.0\"\n", "contribute()\n"},
		{"given", Plugin{ID: "acme.q", Version: "2.0.0", Manifest: "capabilities = [\"data\"]\n", Source: "x = 1\n",
			Files: map[string]string{"lib/a.star": "a"}},
			"id = \"acme.q\"\nversion = \"2.0.0\"\ncapabilities = [\"data\"]\n", "x = 1\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := c.p.Write(t, filepath.Join(t.TempDir(), "p"))
			for name, want := range map[string]string{"plugin.toml": c.manifest, "plugin.star": c.source} {
				if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "lib", "a.star")); (err == nil) != (c.p.Files != nil) {
				t.Errorf("lib/a.star: %v", err)
			}
		})
	}
}

func TestLogRecordsConcurrently(t *testing.T) {
	var s Services[string, int]
	s.Fixed = 7
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if i%2 == 0 {
				s.Note("even")
			} else {
				s.Add("odd")
			}
		})
	}
	wg.Wait()
	if s.Len() != 50 || len(s.Where(func(v string) bool { return v == "even" })) != 25 || s.Facts() != 7 {
		t.Fatalf("len %d, %d even, facts %d; want 50, 25, 7", s.Len(), len(s.Where(func(v string) bool { return v == "even" })), s.Facts())
	}
	if got := strings.Count(s.String(), "\n"); got != 50 {
		t.Errorf("String has %d lines, want 50", got)
	}
	s.Reset()
	if len(s.All()) != 0 {
		t.Errorf("after Reset: %v", s.All())
	}
}
