//go:build !unix

package safefile

import (
	"errors"
	"os"
)

// lockFD fails: the standard library offers no file lock outside unix, and an unlocked
// read-modify-write of the trust file could lose grants.
func lockFD(f *os.File) error {
	return errors.ErrUnsupported
}

// unlockFD has nothing to release.
func unlockFD(f *os.File) error {
	return nil
}

// syncDir is a no-op: directories cannot be opened for sync on these platforms.
func syncDir(dir string) error {
	return nil
}
