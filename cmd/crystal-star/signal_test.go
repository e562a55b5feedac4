package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdMCPSignal runs `mcpsignal [-sampling TOOL] INT|TERM ARGS...`: it
// starts crystal-star ARGS (an mcp command) with the script's environment
// in $WORK, sends an initialize request and waits for its answer (the
// server is up), then sends the signal with stdin still open, and fails
// unless the process exits 0 within 10 seconds — a clean shutdown, as MCP
// clients that stop servers with SIGTERM expect. With -sampling TOOL the
// client declares sampling and calls TOOL (id 2), waits for the server's
// sampling/createMessage request and never answers it; the signal comes
// then, and the answer to the call is printed on stdout.
func cmdMCPSignal(ts *testscript.TestScript, neg bool, args []string) {
	tool := ""
	if len(args) > 2 && args[0] == "-sampling" {
		tool, args = args[1], args[2:]
	}
	if neg || len(args) < 2 {
		ts.Fatalf("usage: mcpsignal [-sampling TOOL] INT|TERM ARGS...")
	}
	sig := map[string]os.Signal{"INT": os.Interrupt, "TERM": syscall.SIGTERM}[args[0]]
	if sig == nil {
		ts.Fatalf("mcpsignal: unknown signal %s", args[0])
	}
	cmd := scriptCommand(ts, args[1:])
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	stdout, err := cmd.StdoutPipe()
	ts.Check(err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ts.Check(cmd.Start())
	caps := `{}`
	if tool != "" {
		caps = `{"sampling":{}}`
	}
	_, err = stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + caps + `,"clientInfo":{"name":"script","version":"1"}}}` + "\n"))
	ts.Check(err)
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"id":1,"result"`) {
		cmd.Process.Kill()
		ts.Fatalf("mcpsignal: no initialize answer; stderr:\n%s", stderr.String())
	}
	if tool != "" {
		_, err = stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}` + "\n"))
		ts.Check(err)
		for lines.Scan() && !strings.Contains(lines.Text(), `"method":"sampling/createMessage"`) {
		}
	}
	ts.Check(cmd.Process.Signal(sig))
	done := make(chan error, 1)
	go func() {
		for lines.Scan() {
			if tool != "" && strings.Contains(lines.Text(), `"id":2,`) {
				fmt.Fprintln(ts.Stdout(), lines.Text())
			}
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ts.Fatalf("mcpsignal: exit %d after SIG%s; stderr:\n%s", ee.ExitCode(), args[0], stderr.String())
		}
		ts.Check(err)
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		ts.Fatalf("mcpsignal: still running 10s after SIG%s", args[0])
	}
	stdin.Close()
}

// scriptCommand is crystal-star ARGS as the script would run it: the
// binary on the script's PATH, in $WORK, with the script's environment.
func scriptCommand(ts *testscript.TestScript, args []string) *exec.Cmd {
	prog := ""
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "crystal-star")); err == nil {
			prog = filepath.Join(dir, "crystal-star")
			break
		}
	}
	if prog == "" {
		ts.Fatalf("crystal-star not on the script's PATH")
	}
	cmd := exec.Command(prog, args...)
	cmd.Dir = ts.Getenv("WORK")
	cmd.Env = os.Environ()
	for _, k := range []string{"PATH", "HOME", "CRYSTAL_HOME", "WORK", "TMPDIR", mcpTokenEnv} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	return cmd
}
