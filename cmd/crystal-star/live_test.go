package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// liveMCP is a `crystal-star mcp` a scenario keeps running, as an agent
// host keeps its MCP server running for a session.
type liveMCP struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  *bufio.Scanner
	stderr *strings.Builder
	next   int
}

var liveMCPs sync.Map // *testscript.TestScript → *liveMCP

// cmdLiveMCP runs `livemcp start ARGS...`, `livemcp call TOOL JSON` and
// `livemcp stop`: a crystal-star (ARGS, e.g. `--dev p mcp`) started with
// the script's $CLAUDE_CODE_SESSION_ID, $GEMINI_CLI and $XDG_RUNTIME_DIR
// (`start-below-shell`: as the child of a shell, not of the scenario) and
// initialised over stdio; call prints the tools/call answer on stdout;
// stop ends its input and waits, printing its stderr on stderr.
func cmdLiveMCP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: livemcp start ARGS... | call TOOL JSON | stop")
	}
	switch args[0] {
	case "start", "start-below-shell":
		cmd := scriptCommand(ts, args[1:])
		if args[0] == "start-below-shell" {
			// sh stays its parent (the command is not sh's last): the
			// agent host's process is sh, not the scenario.
			cmd.Args = append([]string{"sh", "-c", `"$0" "$@"; exit $?`, cmd.Path}, args[1:]...)
			cmd.Path, cmd.Err = "/bin/sh", nil
		}
		for _, k := range []string{"CLAUDE_CODE_SESSION_ID", "GEMINI_CLI", "XDG_RUNTIME_DIR"} {
			cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
		}
		m := &liveMCP{cmd: cmd, stderr: &strings.Builder{}, next: 2}
		var err error
		m.stdin, err = cmd.StdinPipe()
		ts.Check(err)
		out, err := cmd.StdoutPipe()
		ts.Check(err)
		cmd.Stderr = m.stderr
		ts.Check(cmd.Start())
		ts.Defer(func() { _ = cmd.Process.Kill() })
		m.lines = bufio.NewScanner(out)
		m.lines.Buffer(make([]byte, 1<<20), 1<<20)
		m.send(ts, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}`)
		m.await(ts, 1)
		m.send(ts, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		liveMCPs.Store(ts, m)
	case "call":
		m := liveOf(ts)
		if len(args) != 3 {
			ts.Fatalf("usage: livemcp call TOOL JSON")
		}
		id := m.next
		m.next++
		m.send(ts, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, args[1], args[2]))
		fmt.Fprintln(ts.Stdout(), m.await(ts, id))
	case "stop":
		m := liveOf(ts)
		m.stdin.Close()
		err := m.cmd.Wait()
		fmt.Fprint(ts.Stderr(), m.stderr.String())
		ts.Check(err)
		liveMCPs.Delete(ts)
	default:
		ts.Fatalf("livemcp: unknown verb %s", args[0])
	}
}

func liveOf(ts *testscript.TestScript) *liveMCP {
	v, ok := liveMCPs.Load(ts)
	if !ok {
		ts.Fatalf("livemcp: not started")
	}
	return v.(*liveMCP)
}

func (m *liveMCP) send(ts *testscript.TestScript, line string) {
	_, err := io.WriteString(m.stdin, line+"\n")
	ts.Check(err)
}

// await reads lines until the answer to id, and returns it.
func (m *liveMCP) await(ts *testscript.TestScript, id int) string {
	want := fmt.Sprintf(`"id":%d,`, id)
	for m.lines.Scan() {
		if strings.Contains(m.lines.Text(), want) {
			return m.lines.Text()
		}
	}
	ts.Fatalf("livemcp: no answer to request %d; stderr:\n%s", id, m.stderr.String())
	return ""
}
