//go:build unix

package lifecycle

import (
	"errors"
	"io/fs"
	"syscall"
)

// readCapped reads the regular file at name, but never more than room+1
// bytes: a file that grows past the bundle's cap (or a huge one) is refused
// after reading the cap, not after reading all of it. It uses plain system
// calls: open, fstat, read, close. os.Open also tries to register every
// file with the network poller (two fcntl to set non-blocking mode, an
// epoll_ctl that fails for a disk file, two more to undo it) and arms a
// finalizer; starting 1,000 plugins reads 2,000 small files, and those
// calls were a tenth of a one-shot call's CPU (issue 26 point 5).
func readCapped(name string, room int) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		// A FIFO or device would block or never end (O_NONBLOCK keeps
		// the open itself from waiting); the bundle holds regular files
		// only.
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("not a regular file")}
	}
	// The file as it was at the fstat: reading stops at that size (one
	// read for a small file, without a second one to see the end), or at
	// room+1 bytes, which tells the caller the file is over its cap. A
	// file whose size is unknown (0) is read to its end.
	want := room + 1
	if st.Size > 0 && st.Size < int64(want) {
		want = int(st.Size)
	}
	buf := make([]byte, 0, min(want, 1<<20))
	for len(buf) < want {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):min(cap(buf), want)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return buf, nil
}
