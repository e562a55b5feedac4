package testkit

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// TB is the part of testing.TB the kit uses; *testing.T, *testing.B and
// plugintest.TB implement it.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// WriteFiles writes files (slash paths relative to dir → contents) below
// dir, creating directories as needed. It is WriteTree for code without a
// test, such as examples.
func WriteFiles(dir string, files map[string]string) error {
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// WriteTree writes files (slash paths relative to dir → contents) below
// dir and fails the test when it cannot.
func WriteTree(tb TB, dir string, files map[string]string) {
	tb.Helper()
	if err := WriteFiles(dir, files); err != nil {
		tb.Fatalf("testkit: %v", err)
	}
}

// WriteFile writes one file at path, creating its directory, and fails the
// test when it cannot. Tests use it to edit a plugin a host watches.
func WriteFile(tb TB, path, content string) {
	tb.Helper()
	WriteTree(tb, filepath.Dir(path), map[string]string{filepath.ToSlash(filepath.Base(path)): content})
}

// CopyTree copies the regular files below src to dst, creating
// directories as needed.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// Plugin is a plugin directory to write: a plugin.toml and a plugin.star,
// and any further files.
type Plugin struct {
	// ID is the plugin id in the manifest.
	ID string
	// Version is the manifest's version; "1.0.0" when empty.
	Version string
	// Manifest holds further plugin.toml lines (capabilities, dependencies…).
	Manifest string
	// Source is plugin.star; "contribute()\n" when empty.
	Source string
	// Files are further files (slash paths relative to the plugin directory).
	Files map[string]string
}

// Tree returns the plugin's files, manifest and entry file included.
func (p Plugin) Tree() map[string]string {
	version, source := p.Version, p.Source
	if version == "" {
		version = "1.0.0"
	}
	if source == "" {
		source = "contribute()\n"
	}
	files := map[string]string{
		"plugin.toml": fmt.Sprintf("id = %q\nversion = %q\n%s", p.ID, version, p.Manifest),
		"plugin.star": source,
	}
	for name, body := range p.Files {
		files[name] = body
	}
	return files
}

// Write writes the plugin into dir (created as needed), fails the test when
// it cannot, and returns dir.
func (p Plugin) Write(tb TB, dir string) string {
	tb.Helper()
	WriteTree(tb, dir, p.Tree())
	return dir
}
