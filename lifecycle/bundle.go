package lifecycle

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"
)

// builtinMarker marks a host-bundled plugin directory. It grants nothing
// (DC20) and is not part of the snapshot or the fingerprint.
const builtinMarker = ".builtin"

// maxBundleBytes bounds the total size of a plugin bundle snapshot.
const maxBundleBytes = 32 << 20

// Bundle is an immutable in-memory snapshot of a plugin directory (DC23).
// The module and every load() run from it, never from disk, and the
// fingerprint is computed from the same bytes, so the directory can change
// under a live generation without a window between check and use. It
// implements fs.FS and fs.ReadFileFS and is safe for concurrent use.
type Bundle struct {
	files map[string][]byte
	fp    atomic.Pointer[fingerprintMemo] // the last Fingerprint, by manifest
}

// fingerprintMemo is a fingerprint of the snapshot under one manifest
// (compared by identity: a parsed manifest never changes).
type fingerprintMemo struct {
	m  *Manifest
	fp string
}

// fingerprint returns compute(), remembered for m.
func (b *Bundle) fingerprint(m *Manifest, compute func() string) string {
	if f := b.fp.Load(); f != nil && f.m == m {
		return f.fp
	}
	fp := compute()
	b.fp.Store(&fingerprintMemo{m: m, fp: fp})
	return fp
}

// ReadBundle reads every regular file below dir, except the desktop/ tree
// and the .builtin marker, which are not part of the fingerprint. Symbolic links are not
// followed; a bundle larger than maxBundleBytes is an error.
func ReadBundle(dir string) (*Bundle, error) { return readBundle(dir, "", nil, false, nil) }

// readBundle is ReadBundle where the top-level file named known, when the
// directory still lists it, takes the bytes given instead of being read
// again (discovery has just read plugin.toml; the snapshot then holds
// exactly the manifest that was parsed). top, when not nil, is discovery's
// listing of dir, taken instead of listing it again.
func readBundle(dir, known string, data []byte, notLink bool, top []os.DirEntry) (*Bundle, error) {
	r := &bundleReader{b: &Bundle{files: map[string][]byte{}}, known: known, data: data, top: top}
	// The plugin directory itself may be a link (a dev root); links inside
	// it are not followed. One Lstat tells; resolving every component of
	// every plugin's path was a good part of starting many plugins; notLink
	// says discovery listed dir as a directory, which saves the Lstat too.
	if !notLink {
		st, err := os.Lstat(dir)
		if err != nil {
			return nil, err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			if dir, err = filepath.EvalSymlinks(dir); err != nil {
				return nil, err
			}
		}
	}
	r.dir = dir
	if err := r.read(""); err != nil {
		return nil, err
	}
	return r.b, nil
}

// bundleReader reads one bundle snapshot.
type bundleReader struct {
	b     *Bundle
	dir   string
	known string // a top-level file already read, and its bytes
	data  []byte
	top   []os.DirEntry // dir's listing, when discovery has it
	total int
}

// read adds the regular files below dir/rel to the bundle, in name order.
func (r *bundleReader) read(rel string) error {
	dir := r.dir
	entries := r.top
	if rel != "" || entries == nil {
		var err error
		if entries, err = os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return err
		}
	}
	for _, e := range entries {
		name := path.Join(rel, e.Name())
		switch {
		case e.IsDir():
			// desktop/ and every .git directory are not part of the
			// fingerprint (DC18, trust.Fingerprint), so they are not part
			// of what can execute either: entry and load() read only this
			// snapshot.
			if name == "desktop" || e.Name() == ".git" {
				continue
			}
			if err := r.read(name); err != nil {
				return err
			}
		case name == builtinMarker, !e.Type().IsRegular():
		default:
			data := r.data
			if name != r.known || data == nil {
				var err error
				if data, err = readCapped(filepath.Join(dir, filepath.FromSlash(name)), maxBundleBytes-r.total); err != nil {
					return err
				}
			}
			if r.total += len(data); r.total > maxBundleBytes {
				return fmt.Errorf("plugin bundle %s is larger than %d bytes", dir, maxBundleBytes)
			}
			r.b.files[name] = data
		}
	}
	return nil
}

// NewBundle returns a bundle of the given files (paths slash-separated).
func NewBundle(files map[string][]byte) *Bundle { return &Bundle{files: files} }

// Files returns the snapshot's files. The map must not be modified.
func (b *Bundle) Files() map[string][]byte { return b.files }

// paths returns the file paths in sorted order.
func (b *Bundle) paths() []string { return slices.Sorted(maps.Keys(b.files)) }

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
