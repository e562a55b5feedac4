//go:build workerprofile

package worker

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/crystal-star/crystal-star/contrib/wire"
)

// A binary built with -tags workerprofile profiles each of its workers
// when wire.EnvProfile is set (docs/isolation.md, "Profiling a worker"):
// the worker writes PREFIX.PID.cpu, its CPU profile, and PREFIX.PID.allocs,
// its allocations, when the host closes its channel. The tag keeps
// runtime/pprof out of every other build: the core links only what it uses
// (issue 26, point 1).
func init() {
	prefix := os.Getenv(wire.EnvProfile)
	if prefix == "" || !IsChild() {
		return
	}
	startProfile = func() func() {
		name := fmt.Sprintf("%s.%d", prefix, os.Getpid())
		cpu, err := os.Create(name + ".cpu")
		if err == nil {
			err = pprof.StartCPUProfile(cpu)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "crystal-star worker: cannot profile: %v\n", err)
			return func() {}
		}
		return func() {
			// The allocations first: they are complete as of the last
			// collection, and a host that exits kills its workers.
			if f, err := os.Create(name + ".allocs"); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				_ = f.Close()
			}
			pprof.StopCPUProfile()
			_ = cpu.Close()
		}
	}
}
