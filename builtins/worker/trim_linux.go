//go:build linux

package worker

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// trimSoon drops the executable's pages again once activations have been
// quiet for trimDelay: activating touches code (the compiler, schema
// checks) that serving calls does not use. A burst of activations — a
// worker's share of a host's start — ends in one drop.
func trimSoon() {
	trimMu.Lock()
	defer trimMu.Unlock()
	if trimTimer == nil {
		trimTimer = time.AfterFunc(trimDelay, dropInitPages)
		return
	}
	trimTimer.Reset(trimDelay)
}

const trimDelay = 200 * time.Millisecond

var (
	trimMu    sync.Mutex
	trimTimer *time.Timer
)

// dropInitPages drops from this process's resident set the pages of its
// own executable that are mapped read-only (code and read-only data) and
// were touched so far: a worker is the host binary re-executed, and its
// package initialisation touches code and tables all over the binary — 28
// of the 34 MB a CLI worker held at start — that plugin calls never use
// again. The pages stay in the page cache; the few a call does use fault
// back in from there (a minor fault, no I/O). Writable mappings are left
// alone: dropping them would lose their contents. Best effort: an error
// leaves the pages where they were.
func dropInitPages() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// start-end perms offset dev inode path
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[5] != exe || strings.Contains(f[1], "w") {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
	}
}
