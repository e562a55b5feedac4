//go:build linux

package wire

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// spinTries is how many times a read of a pipe tries again, yielding the
// processor between tries, before its goroutine parks in the runtime's
// poller. An answer usually comes within a few microseconds of the
// question (issue 26, point 2); parking and being woken through epoll
// costs more than that on an idle machine (docs/performance.md: a worker
// call went from 39–41 µs to 29–31 µs p50 on a quiet machine, at less CPU
// per call). Without the yield, spinning took the processor the worker
// needed on a busy machine.
const spinTries = 40

// spinning returns r reading as spinRead does when r is a pipe the
// runtime polls, and r itself otherwise.
func spinning(r io.Reader) io.Reader {
	if f, ok := r.(*os.File); ok {
		if rc, err := f.SyscallConn(); err == nil {
			return spinFile{f, rc}
		}
	}
	return r
}

// spinFile is an *os.File (its deadlines, Close and the rest) whose Read
// tries again spinTries times before it waits for the poller. A deadline
// still ends a Read: the poller checks it before each try and while it
// waits.
type spinFile struct {
	*os.File
	rc syscall.RawConn
}

func (s spinFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	tries := 0
	err := s.rc.Read(func(fd uintptr) bool {
		for {
			n, rerr = syscall.Read(int(fd), p)
			switch {
			case errors.Is(rerr, syscall.EINTR):
				continue
			case !errors.Is(rerr, syscall.EAGAIN):
				return true
			}
			if tries++; tries > spinTries {
				return false // wait in the poller, then try again
			}
			// Give the processor to whoever waits for it — on a busy
			// machine, often the process that is to answer.
			syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
		}
	})
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, &os.PathError{Op: "read", Path: s.Name(), Err: rerr}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
