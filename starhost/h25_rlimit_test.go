//go:build linux

package starhost_test

import (
	"syscall"
	"testing"
)

// exhaustDescriptors lowers the process's open-file limit to the
// descriptors already open, so the next one (an inotify instance) cannot
// be had; the returned function restores the limit.
func exhaustDescriptors(t *testing.T) (restore func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip(err)
	}
	low := old
	low.Cur = 3 // a new descriptor's number must be below 3: stdin, stdout and stderr hold them
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	return func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Fatal(err)
		}
	}
}
