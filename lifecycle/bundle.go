package lifecycle

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"
)

// BuiltinMarker marks a host-bundled plugin directory. It grants nothing
// (DC20) and is not part of the snapshot or the fingerprint.
const BuiltinMarker = ".builtin"

// MaxBundleBytes bounds the total size of a plugin bundle snapshot.
const MaxBundleBytes = 32 << 20

// Bundle is an immutable in-memory snapshot of a plugin directory (DC23).
// The module and every load() run from it, never from disk, and the
// fingerprint is computed from the same bytes, so the directory can change
// under a live generation without a window between check and use. It
// implements fs.FS and fs.ReadFileFS and is safe for concurrent use.
type Bundle struct {
	files map[string][]byte
}

// ReadBundle reads every regular file below dir, except the desktop/ tree
// and the .builtin marker, which are not part of the fingerprint. Symbolic links are not
// followed; a bundle larger than MaxBundleBytes is an error.
func ReadBundle(dir string) (*Bundle, error) {
	b := &Bundle{files: map[string][]byte{}}
	// The plugin directory itself may be a link (a dev root); links inside
	// it are not followed. One Lstat tells; resolving every component of
	// every plugin's path was a good part of starting many plugins.
	if st, err := os.Lstat(dir); err != nil {
		return nil, err
	} else if st.Mode()&fs.ModeSymlink != 0 {
		if dir, err = filepath.EvalSymlinks(dir); err != nil {
			return nil, err
		}
	}
	total := 0
	if err := b.read(dir, "", &total); err != nil {
		return nil, err
	}
	return b, nil
}

// read adds the regular files below dir/rel to b, in name order.
func (b *Bundle) read(dir, rel string, total *int) error {
	entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := path.Join(rel, e.Name())
		switch {
		case e.IsDir():
			// desktop/ is not part of the fingerprint (DC18), so it is not
			// part of what can execute either.
			if name == "desktop" || e.Name() == ".git" {
				continue
			}
			if err := b.read(dir, name, total); err != nil {
				return err
			}
		case name == BuiltinMarker, !e.Type().IsRegular():
		default:
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
			if err != nil {
				return err
			}
			if *total += len(data); *total > MaxBundleBytes {
				return fmt.Errorf("plugin bundle %s is larger than %d bytes", dir, MaxBundleBytes)
			}
			b.files[name] = data
		}
	}
	return nil
}

// NewBundle returns a bundle of the given files (paths slash-separated).
func NewBundle(files map[string][]byte) *Bundle { return &Bundle{files: files} }

// Files returns the snapshot's files. The map must not be modified.
func (b *Bundle) Files() map[string][]byte { return b.files }

// Paths returns the file paths in sorted order.
func (b *Bundle) Paths() []string { return slices.Sorted(mapKeys(b.files)) }

// ReadFile returns the contents of name.
func (b *Bundle) ReadFile(name string) ([]byte, error) {
	data, ok := b.files[name]
	if !ok || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(data), nil
}

// Open opens a file of the snapshot (directories are not listed).
func (b *Bundle) Open(name string) (fs.File, error) {
	data, ok := b.files[name]
	if !ok || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &bundleFile{name: name, Reader: bytes.NewReader(data), size: int64(len(data))}, nil
}

type bundleFile struct {
	name string
	*bytes.Reader
	size int64
}

func (f *bundleFile) Stat() (fs.FileInfo, error) { return fileInfo{f}, nil }
func (f *bundleFile) Close() error               { return nil }

type fileInfo struct{ f *bundleFile }

func (i fileInfo) Name() string       { return path.Base(i.f.name) }
func (i fileInfo) Size() int64        { return i.f.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }

var _ fs.ReadFileFS = (*Bundle)(nil)
