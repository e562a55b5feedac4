package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib/wire"
)

// TestMain lets the test binary serve as a worker (TestH26_2_*).
func TestMain(m *testing.M) {
	if IsChild() {
		Main()
	}
	os.Exit(m.Run())
}

// TestH26_2_WorkerRunsOnTwoProcs: a worker runs its Go code on two
// processors (fewer on a one-core machine), one for the reader waiting in
// read, one for the rest, and says so in its hello; an operator's
// GOMAXPROCS wins. It reads its channel in blocking mode (Linux: the
// flags of its fd 0), not through the runtime's poller.
func TestH26_2_WorkerRunsOnTwoProcs(t *testing.T) {
	for env, want := range map[string]int{"": min(2, runtime.NumCPU()), "GOMAXPROCS=1": 1} {
		h, flags := startWorker(t, env)
		if h.Procs != want {
			t.Errorf("with %q the worker's hello says %d procs, want %d", env, h.Procs, want)
		}
		if flags&syscall.O_NONBLOCK != 0 {
			t.Errorf("with %q the worker reads its channel in non-blocking mode (flags %o)", env, flags)
		}
	}
}

// startWorker starts this test binary as a worker with env added, and
// returns its hello and the flags of its fd 0 (-1 where /proc has none),
// read while it serves.
func startWorker(t *testing.T, env string) (wire.Hello, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), wire.EnvWorker+"="+wire.Version)
	if env != "" {
		cmd.Env = append(cmd.Env, env)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	hellos := make(chan wire.Hello, 1)
	conn := wire.NewConn(stdout, stdin, nil, func(_ context.Context, method string, body []byte) {
		var h wire.Hello
		if method == wire.NotifyHello && json.Unmarshal(body, &h) == nil {
			hellos <- h
		}
	})
	go func() { _ = conn.Serve() }()
	h := <-hellos
	// The hello comes before the worker reads: one call answered means
	// its read side is as it serves.
	if err := conn.Call(context.Background(), wire.MethodPing, nil, nil); err != nil {
		t.Fatal(err)
	}
	flags := int64(-1)
	if info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/0", cmd.Process.Pid)); err == nil {
		for _, line := range strings.Split(string(info), "\n") {
			if v, ok := strings.CutPrefix(line, "flags:"); ok {
				flags, _ = strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			}
		}
	}
	return h, flags
}

// TestH26_2_WorkerTakesItsProcsBackWhenTheHeapGrows: a worker on one
// processor gets its processors back after a collection that leaves more
// than the threshold live, so a heavily allocating plugin (a memory bomb
// racing memory_limit) is marked on a core of its own; a small heap keeps
// one processor.
func TestH26_2_WorkerTakesItsProcsBackWhenTheHeapGrows(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	widenWhenHeapGrows(2, 32<<20)
	for range 5 {
		runtime.GC()
	}
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("a small heap widened the worker to %d processors", n)
	}
	big := make([]byte, 64<<20)
	for i := 0; i < 200 && runtime.GOMAXPROCS(0) == 1; i++ {
		runtime.GC()
		runtime.Gosched()
		time.Sleep(time.Millisecond) // the cleanup runs on the runtime's goroutine
	}
	runtime.KeepAlive(big)
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("with 64 MiB live the worker still runs on %d processor(s)", n)
	}
	if heapThreshold(64<<20) != 16<<20 || heapThreshold(0) != 64<<20 {
		t.Error("the threshold is a quarter of memory_limit, or 64 MiB without one")
	}
}
