package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Replace writes data to path atomically, as WriteFile does, keeping what
// the file already is: through a symbolic link the file it points to is
// replaced (the link stays a link), and an existing file keeps its
// permission bits. perm applies only when the file does not exist yet.
func Replace(path string, data []byte, perm os.FileMode) error {
	target, err := filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		target = path
	case err != nil:
		return fmt.Errorf("write %s: %w", path, err)
	default:
		st, err := os.Stat(target)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		perm = st.Mode().Perm()
	}
	return WriteFile(target, data, perm)
}

// Edit changes the file at path in one locked read-modify-write: under
// Lock(path + ".lock") it reads the file (nil when it does not exist),
// passes its bytes to change and, when change reports a change, writes what
// change returned with Replace (perm for a new file). When the file cannot
// be read, or change returns an error (such as a parse error), nothing is
// written: an unreadable file is never overwritten. The parent directory
// must exist. Edit reports whether it wrote the file.
func Edit(path string, perm os.FileMode, change func(data []byte) (out []byte, changed bool, err error)) (wrote bool, err error) {
	unlock, err := Lock(path + ".lock")
	if err != nil {
		return false, err
	}
	defer func() { err = errors.Join(err, unlock()) }()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("%s is unreadable and was not changed: %w", path, err)
	}
	out, changed, err := change(data)
	if err != nil || !changed {
		return false, err
	}
	if err := Replace(path, out, perm); err != nil {
		return false, err
	}
	return true, nil
}
