package worker

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// sysProcAttr asks the kernel to SIGKILL the worker when the host dies,
// even by SIGKILL (PR_SET_PDEATHSIG). The signal follows the thread that
// started the worker; the worker's stdin closing covers the rest.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// residentBytes reads a process's resident set size from /proc.
func residentBytes(pid int) (int64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, err
	}
	f := bytes.Fields(data)
	if len(f) < 2 {
		return 0, os.ErrInvalid
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	return pages * int64(os.Getpagesize()), err
}
