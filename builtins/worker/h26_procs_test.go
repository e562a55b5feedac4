package worker

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
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

// TestH26_2_WorkerRunsOnOneProc: a worker runs its Go code on one
// processor, which halves a trivial call's CPU and p50 (every hand-off
// between its goroutines woke an idle second thread), and says so in its
// hello; an operator's GOMAXPROCS wins.
func TestH26_2_WorkerRunsOnOneProc(t *testing.T) {
	for env, want := range map[string]int{"": 1, "GOMAXPROCS=2": 2} {
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
		hellos := make(chan wire.Hello, 1)
		conn := wire.NewConn(stdout, stdin, nil, func(_ context.Context, method string, body []byte) {
			var h wire.Hello
			if method == wire.NotifyHello && json.Unmarshal(body, &h) == nil {
				hellos <- h
			}
		})
		go func() { _ = conn.Serve() }()
		h := <-hellos
		stdin.Close()
		_ = cmd.Wait()
		if h.Procs != want {
			t.Errorf("with %q the worker's hello says %d procs, want %d", env, h.Procs, want)
		}
	}
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
