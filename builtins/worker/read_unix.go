//go:build unix

package worker

import (
	"os"
	"syscall"
)

// blocking returns f with its descriptor in blocking mode, so the goroutine
// that reads the channel waits for the host in read(2) on its own thread,
// as the floor of a round trip over a pipe does: a call then costs one
// read instead of a read that finds nothing, a wait in the runtime's
// poller (epoll_wait, twice per park: once without blocking, once
// blocking) and the read again (docs/performance.md, issue 26 point 2).
// The worker never needs to interrupt the read: the channel ends when the
// host closes it or dies. f itself when the mode cannot be set.
func blocking(f *os.File) *os.File {
	_ = syscall.SetNonblock(int(f.Fd()), false)
	return f
}
