//go:build !linux

package worker

import (
	"errors"
	"syscall"
)

// sysProcAttr has no parent-death signal outside Linux: the worker exits
// when its stdin closes, which the kernel does when the host dies.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// residentBytes is unknown outside Linux: the watchdog stays idle.
func residentBytes(int) (int64, error) { return 0, errors.New("not supported") }
