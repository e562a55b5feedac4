package worker

import (
	"bytes"
	"io/fs"
	"time"
)

// memFS is the bundle snapshot the host sent: slash-separated paths to
// contents. Starlark reads it with fs.ReadFile (DC23); nothing else is
// reachable from plugin code.
// It is a pointer type so the activator can tell one snapshot from
// another by identity (and reuse what Compile built).
type memFS struct{ files map[string][]byte }

func (m *memFS) ReadFile(name string) ([]byte, error) {
	b, ok := m.files[name]
	if !ok || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return bytes.Clone(b), nil
}

func (m *memFS) Open(name string) (fs.File, error) {
	b, err := m.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &memFile{Reader: bytes.NewReader(b), info: memInfo{name: name, size: int64(len(b))}}, nil
}

type memFile struct {
	*bytes.Reader
	info memInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// Files returns the bundle's files, as lifecycle.Bundle does (a "did you
// mean" of a missing load() lists them).
func (m *memFS) Files() map[string][]byte { return m.files }
