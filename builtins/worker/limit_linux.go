package worker

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// threadHeadroom is address space left for the stacks of threads the Go
// runtime starts later (8 MiB each when they come from pthread_create):
// reserved, almost never touched. Without it a busy worker fails to start
// a thread long before its heap reaches the limit.
const threadHeadroom = 256 << 20

// limitAddressSpace caps this process's address space (RLIMIT_AS) at what
// it has mapped now plus limit plus threadHeadroom. The Go runtime and
// go.starlark.net reserve several hundred MiB of address space at start
// without using it, so a fixed RLIMIT_AS below that would stop the worker
// from starting at all; measured from here, the limit is what plugin code
// may add. One huge allocation ([0] * 10^9) fails here at once; growth
// below the headroom is the host's watchdog's, which enforces limit on the
// resident size.
func limitAddressSpace(limit int64) error {
	vm, err := mappedBytes()
	if err != nil {
		return err
	}
	max := uint64(vm + limit + threadHeadroom)
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
