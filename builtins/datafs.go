package builtins

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// Limits of the data directories (CC29, CC30).
const (
	// maxDataFileSize bounds one file read or written through ctx.data.
	maxDataFileSize = 4 << 20
	// maxDataListEntries bounds the names one list() returns.
	maxDataListEntries = 10_000
)

// confinedDir performs file operations strictly inside one directory. A
// path is relative and slash-separated: absolute paths, ".." elements,
// backslashes and NUL bytes are refused before the file system is touched,
// and every operation goes through an os.Root, which refuses symlinks that
// lead outside the directory.
type confinedDir struct{ dir, scope string }

// rel validates p and returns it cleaned. root allows "" and "." (the
// directory itself).
func (d confinedDir) rel(p string, root bool) (string, error) {
	switch {
	case p == "" && root:
		return ".", nil
	case p == "":
		return "", errors.New("the path is empty")
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("%q is refused: it contains a NUL byte", p)
	case strings.Contains(p, `\`):
		return "", fmt.Errorf("%q is refused: use / to separate path elements", p)
	case path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", fmt.Errorf("%q is refused: absolute paths are not allowed; give a path relative to the %s data directory", p, d.scope)
	}
	if slices.Contains(strings.Split(p, "/"), "..") {
		return "", fmt.Errorf("%q is refused: \"..\" is not allowed; paths stay inside the %s data directory", p, d.scope)
	}
	clean := path.Clean(p)
	if clean == "." && !root {
		return "", fmt.Errorf("%q names the %s data directory itself; give a file path", p, d.scope)
	}
	return clean, nil
}

// open opens the directory as a root; create makes it first (the host
// tried already, CC29, but the directory may have been removed since).
func (d confinedDir) open(create bool) (*os.Root, error) {
	if create {
		_ = os.MkdirAll(d.dir, 0o755)
	}
	r, err := os.OpenRoot(d.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fs.ErrNotExist
		}
		return nil, fmt.Errorf("the %s data directory cannot be opened: %w", d.scope, unwrapPath(err))
	}
	return r, nil
}

// explain turns a file-system error into a message that names the relative
// path, never the directory's absolute path.
func (d confinedDir) explain(err error, rel string) error {
	var r *refusal
	switch {
	case errors.As(err, &r):
		return err
	case strings.HasPrefix(err.Error(), "the "+d.scope+" data directory"):
		return err // from open: about the directory, not the path
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%q does not exist in the %s data directory", rel, d.scope)
	case strings.Contains(err.Error(), "path escapes from parent"):
		return fmt.Errorf("%q is refused: it leads outside the %s data directory (through a symlink)", rel, d.scope)
	}
	return fmt.Errorf("%q: %w", rel, unwrapPath(err))
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// in validates p, opens the directory (making it first when create is
// set) and runs fn with the root and the cleaned path; fn's errors are
// explained. missing reports that the data directory does not exist (fn did
// not run), which list and exists treat as empty.
func (d confinedDir) in(p string, root, create bool, fn func(r *os.Root, rel string) error) (missing bool, err error) {
	rel, err := d.rel(p, root)
	if err != nil {
		return false, err
	}
	r, err := d.open(create)
	if errors.Is(err, fs.ErrNotExist) {
		return true, d.explain(err, rel)
	}
	if err != nil {
		return false, d.explain(err, rel)
	}
	defer r.Close()
	if err := fn(r, rel); err != nil {
		return false, d.explain(err, rel)
	}
	return false, nil
}

// refusal is an operation's own message about a path; explain passes it
// on unchanged.
type refusal struct{ msg string }

func (e *refusal) Error() string { return e.msg }

func (d confinedDir) read(p string) ([]byte, error) {
	var data []byte
	_, err := d.in(p, false, false, func(r *os.Root, rel string) error {
		f, err := r.Open(rel)
		if err != nil {
			return err
		}
		defer f.Close()
		if info, err := f.Stat(); err != nil {
			return err
		} else if info.IsDir() {
			return &refusal{fmt.Sprintf("%q is a directory; use list", rel)}
		}
		if data, err = io.ReadAll(io.LimitReader(f, maxDataFileSize+1)); err != nil {
			return err
		}
		if len(data) > maxDataFileSize {
			return &refusal{fmt.Sprintf("%q is larger than the limit of %d bytes", rel, maxDataFileSize)}
		}
		return nil
	})
	return data, err
}

var tmpSeq atomic.Uint64

// write replaces p atomically: a temporary file in the same directory is
// written, synced and renamed over p. Parent directories are created.
func (d confinedDir) write(p string, data []byte) error {
	if len(data) > maxDataFileSize {
		return fmt.Errorf("%q: %d bytes is larger than the limit of %d bytes", p, len(data), maxDataFileSize)
	}
	_, err := d.in(p, false, true, func(r *os.Root, rel string) error {
		parent := path.Dir(rel)
		if parent != "." {
			if err := r.MkdirAll(parent, 0o755); err != nil {
				return err
			}
		}
		tmp := path.Join(parent, fmt.Sprintf(".%s.tmp-%d-%d", path.Base(rel), os.Getpid(), tmpSeq.Add(1)))
		f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = r.Rename(tmp, rel)
		}
		if err != nil {
			_ = r.Remove(tmp)
		}
		return err
	})
	return err
}

// list returns the names in directory p ("" for the data directory), sorted;
// directories end in "/" (a symlink does not, whatever it points to). A
// missing data directory lists as empty.
func (d confinedDir) list(p string) ([]string, error) {
	names := []string{}
	missing, err := d.in(p, true, false, func(r *os.Root, rel string) error {
		f, err := r.Open(rel)
		if err != nil {
			return err
		}
		defer f.Close()
		entries, err := f.ReadDir(maxDataListEntries + 1)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if len(entries) > maxDataListEntries {
			return &refusal{fmt.Sprintf("%q holds more than %d entries", rel, maxDataListEntries)}
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-") {
				continue // an atomic write in progress
			}
			if e.IsDir() {
				name += "/"
			}
			names = append(names, name)
		}
		slices.Sort(names)
		return nil
	})
	if missing && (p == "" || path.Clean(p) == ".") {
		return []string{}, nil
	}
	return names, err
}

// exists reports whether p exists. A path refused by the rules, or one
// that leads outside through a symlink, is an error, not False.
func (d confinedDir) exists(p string) (bool, error) {
	found := false
	missing, err := d.in(p, false, false, func(r *os.Root, rel string) error {
		_, err := r.Stat(rel)
		found = err == nil
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
	if missing {
		return false, nil
	}
	return found, err
}

// remove deletes a file, a symlink (not its target) or an empty directory.
func (d confinedDir) remove(p string) error {
	_, err := d.in(p, false, false, func(r *os.Root, rel string) error { return r.Remove(rel) })
	return err
}
