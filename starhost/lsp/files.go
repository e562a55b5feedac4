package lsp

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/crystal-star/crystal-star/starhost"
)

// files is one request's view of a plugin's files. The language server
// reads them only as the host does: from the plugin's bundle snapshot
// (starhost.ReadPluginBundle — regular files inside the plugin directory,
// links not followed, the host's size cap), with load() resolved by the
// host's own rule (starhost.ResolveLoad), and the editor's unsaved text in
// place of a file's. A FIFO, a device, a link out of the directory or a
// load("../../dev/zero") is never opened; a file outside every plugin
// directory is only what the editor sent.
type files struct {
	s      *server
	dir    string // the plugin directory; "" when the file is in none
	bundle func() (*starhost.PluginBundle, error)
}

// filesOf returns the view of the plugin whose directory holds path. The
// bundle is read on first use, once.
func (s *server) filesOf(path string) *files {
	dir, err := pluginDir(path)
	if err != nil {
		dir = ""
	}
	return s.filesIn(dir)
}

// filesIn returns the view of the plugin in dir.
func (s *server) filesIn(dir string) *files {
	return &files{s: s, dir: dir, bundle: sync.OnceValues(func() (*starhost.PluginBundle, error) {
		return starhost.ReadPluginBundle(dir)
	})}
}

// rel returns path relative to the plugin directory, slash-separated; ok is
// false when path is not inside it.
func (f *files) rel(path string) (string, bool) {
	if f.dir == "" {
		return "", false
	}
	rel, err := filepath.Rel(f.dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// text returns the editor's text of path, else the text of the bundle's
// file at path.
func (f *files) text(path string) (string, bool) {
	if t, ok := f.s.doc(path); ok {
		return t, true
	}
	rel, ok := f.rel(path)
	if !ok {
		return "", false
	}
	b, err := f.bundle()
	if err != nil {
		return "", false
	}
	data, ok := b.File(rel)
	return string(data), ok
}

// load resolves module as load() in the file at from does when the host
// activates the plugin, and returns the loaded file's path and text (a
// Loader).
func (f *files) load(from, module string) (string, string, bool) {
	rel, ok := f.rel(from)
	if !ok {
		return "", "", false
	}
	target, err := starhost.ResolveLoad(rel, module)
	if err != nil {
		return "", "", false
	}
	path := filepath.Join(f.dir, filepath.FromSlash(target))
	text, ok := f.text(path)
	return path, text, ok
}
