package worker

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// limitAddressSpace caps this process's address space (RLIMIT_AS) at what
// it has mapped now plus limit. The Go runtime and go.starlark.net reserve
// several hundred MiB of address space at start without using it, so a
// fixed RLIMIT_AS below that would stop the worker from starting at all;
// measured from here, the limit is what plugin code may add.
func limitAddressSpace(limit int64) error {
	vm, err := mappedBytes()
	if err != nil {
		return err
	}
	max := uint64(vm + limit)
	return unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: max, Max: max})
}

// mappedBytes reads VmSize from /proc/self/status.
func mappedBytes() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := bytes.Fields(sc.Bytes()); len(f) >= 2 && string(f[0]) == "VmSize:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmSize in /proc/self/status")
}
