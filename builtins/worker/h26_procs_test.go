package worker

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

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
		conn := wire.NewConn(stdout, stdin, nil, func(method string, body []byte) {
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
