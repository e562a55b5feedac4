//go:build unix

package live

import (
	"fmt"
	"os"
	"syscall"
)

// private checks that dir is a directory (not a link) of this user that
// nobody else may open.
func private(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory: live sessions are off", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to another user: live sessions are off", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s may be opened by other users (mode %v): live sessions are off until it is 0700", dir, fi.Mode().Perm())
	}
	return nil
}
