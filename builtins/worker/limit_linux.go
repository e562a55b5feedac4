package worker

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/crystal-star/crystal-star/contrib"
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
//
// A process may lower its hard limit but never raise it: under an
// inherited hard RLIMIT_AS (ulimit -v, systemd's LimitAS=, a container's)
// below that sum, the worker clamps its limit to the hard one and says so
// in clamped. It returns the limit it applied.
func limitAddressSpace(limit int64) (applied uint64, clamped string, err error) {
	vm, err := mappedBytes()
	if err != nil {
		return 0, "", err
	}
	want := uint64(vm + limit + threadHeadroom)
	var cur unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &cur); err != nil {
		return 0, "", err
	}
	max := want
	if cur.Max != unix.RLIM_INFINITY && cur.Max < want {
		max = cur.Max
		clamped = fmt.Sprintf("the inherited hard address-space limit (RLIMIT_AS, ulimit -v) of %s is below what memory_limit %s needs in a worker (%s: %s mapped at start, the limit, %s for thread stacks), and a process cannot raise its hard limit; workers run under %s",
			contrib.FormatByteSize(int64(cur.Max)), contrib.FormatByteSize(limit), contrib.FormatByteSize(int64(want)),
			contrib.FormatByteSize(vm), contrib.FormatByteSize(threadHeadroom), contrib.FormatByteSize(int64(cur.Max)))
	}
	return max, clamped, unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: max, Max: max})
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
