package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// rename is os.Rename; tests replace it to prove a failed rename keeps the old file.
var rename = os.Rename

// WriteFile writes data to path via a temporary file in the same directory, fsync,
// rename, and fsync of the directory. On any failure the previous file is intact and the
// temporary file removed. Readers therefore see either the old or the new content, never a
// mix, even across a crash.
//
// The file ends up with exactly perm (the umask is not applied). The parent directory must
// exist. If path is a symbolic link, the link itself is replaced. The only failure reported
// after the new content is in place is a failed fsync of the directory, which the error
// says. Concurrent writers of one path must serialise with Lock, or the last rename wins.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = rename(tmpName, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if derr := syncDir(dir); derr != nil {
		// The rename happened: the new content is in place, only its durability is unknown.
		return fmt.Errorf("write %s: content replaced, but syncing directory %s failed: %w", path, dir, derr)
	}
	return nil
}

// Lock takes an exclusive cross-process lock on path (created if missing) and returns
// the unlock function. It blocks until the lock is free. The lock is advisory: it excludes
// only other Lock callers. Two calls in one process exclude each other too, so a
// goroutine must not take the same lock twice. The lock file is never removed (removing it
// would let a waiter and a newcomer lock different files). The lock is released when the
// process exits even if unlock is never called.
func Lock(path string) (unlock func() error, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := lockFD(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() error {
		uerr := unlockFD(f)
		cerr := f.Close() // closing releases the lock even if unlockFD failed
		if err := errors.Join(uerr, cerr); err != nil {
			return fmt.Errorf("unlock %s: %w", path, err)
		}
		return nil
	}, nil
}
