package worker

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// startProfile, set in a binary built with -tags workerprofile
// (profile.go), starts profiling the worker and returns what writes the
// profiles once it has served.
var startProfile func() (stop func())

// IsChild reports whether this process was started as a worker.
func IsChild() bool { return os.Getenv(wire.EnvWorker) != "" }

// Main runs this process as a worker and exits: it applies the memory limit
// the host passed, serves the channel on stdin/stdout, and exits when the
// host closes stdin (the host died or closed the worker: no worker outlives
// its host). Plugin code never runs before the limit is in place.
func Main() {
	if v := os.Getenv(wire.EnvWorker); v != wire.Version {
		fmt.Fprintf(os.Stderr, "crystal-star worker: %s\n", wire.VersionMismatch("worker", v))
		os.Exit(3)
	}
	hello := &wire.Hello{Version: wire.Version, PID: os.Getpid()}
	wideProcs := runtime.GOMAXPROCS(0)
	if limit, err := strconv.ParseInt(os.Getenv(wire.EnvMemoryLimit), 10, 64); err == nil && limit > 0 {
		debug.SetMemoryLimit(limit) // the collector works harder before the OS limit hits
		applied, clamped, err := limitAddressSpace(limit)
		hello.Limit, hello.Clamped = int64(applied), clamped
		if err != nil {
			hello.Failed = fmt.Sprintf("cannot apply memory_limit: setting RLIMIT_AS to %s: %v", contrib.FormatByteSize(int64(applied)), err)
		}
	}
	// Stdout is the channel: nothing else may write to it.
	out := os.Stdout
	os.Stdout = os.Stderr
	if hello.Failed != "" {
		// Answer the handshake with the cause, so the host reports it
		// instead of guessing, and serve nothing: plugin code never runs
		// without its limit.
		fmt.Fprintf(os.Stderr, "crystal-star worker: %s\n", hello.Failed)
		c := wire.NewConn(os.Stdin, out, nil, nil)
		_ = c.Notify(wire.NotifyHello, hello)
		os.Exit(3)
	}
	dropInitPages()
	hello.Procs = fewProcs()
	if hello.Procs < wideProcs {
		widenWhenHeapGrows(wideProcs, heapThreshold(hello.Limit))
	}
	stop := func() {}
	if startProfile != nil {
		stop = startProfile()
	}
	err := serve(blocking(os.Stdin), out, hello)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "crystal-star worker: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}
