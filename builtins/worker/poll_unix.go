//go:build unix

package worker

import (
	"os"
	"syscall"
)

// pollable returns f in non-blocking mode, read through the Go runtime's
// poller: a read that waits parks its goroutine instead of blocking a
// thread in the kernel, so the call it brings runs without a hand-off
// between threads (docs/performance.md, issue 26). f itself when that
// fails.
func pollable(f *os.File) *os.File {
	if err := syscall.SetNonblock(int(f.Fd()), true); err != nil {
		return f
	}
	return os.NewFile(f.Fd(), f.Name())
}
