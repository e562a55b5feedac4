package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdMCPHTTP runs `mcphttp ARGS...`: it starts crystal-star ARGS (an
// `mcp --http` command) in $WORK, reads the endpoint it prints on stderr,
// and as an MCP client over Streamable HTTP (with $CRYSTAL_MCP_TOKEN as
// bearer token when the script sets it) prints what it serves: the tools,
// the first tool's answer to {}, the prompts, the resources, and the HTTP
// status of a request with a foreign Host (DNS rebinding). It then sends
// SIGTERM and fails unless the server exits 0 within 10 seconds.
func cmdMCPHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: mcphttp ARGS...")
	}
	cmd, url := startMCPHTTP(ts, args)
	defer cmd.Process.Kill()
	out := ts.Stdout()
	ts.Check(mcpHTTPSession(out, url, ts.Getenv(mcpTokenEnv)))
	req, _ := http.NewRequest("POST", url, strings.NewReader("{}"))
	req.Host = "evil.example.com"
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	resp.Body.Close()
	fmt.Fprintf(out, "foreign host: %d\n", resp.StatusCode)

	stopMCPHTTP(ts, cmd, out)
}

// startMCPHTTP starts crystal-star args (an `mcp --http` command) in $WORK
// and returns it with the endpoint it printed on stderr.
func startMCPHTTP(ts *testscript.TestScript, args []string) (*exec.Cmd, string) {
	cmd := scriptCommand(ts, args)
	stderr, err := cmd.StderrPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	lines := bufio.NewScanner(stderr)
	url := ""
	for url == "" && lines.Scan() {
		url, _ = strings.CutPrefix(lines.Text(), "mcp: serving Streamable HTTP on ")
	}
	if url == "" {
		_ = cmd.Process.Kill()
		ts.Fatalf("mcphttp: the server printed no endpoint")
	}
	go func() {
		for lines.Scan() { // notes; keep the pipe drained
		}
	}()
	return cmd, url
}

// cmdMCPHTTPRun runs `mcphttprun ARGS... -- CMD...`: it starts crystal-star
// ARGS (an `mcp --http` command) as mcphttp does, runs CMD in $WORK with
// the endpoint in $URL and prints CMD's output, then stops the server
// (SIGTERM, exit 0 within 10 seconds). docs/mcp.md's curl exchange runs so.
func cmdMCPHTTPRun(ts *testscript.TestScript, neg bool, args []string) {
	i := slices.Index(args, "--")
	if neg || i < 1 || i == len(args)-1 {
		ts.Fatalf("usage: mcphttprun ARGS... -- CMD...")
	}
	srv, url := startMCPHTTP(ts, args[:i])
	defer srv.Process.Kill()
	run := exec.Command(args[i+1], args[i+2:]...)
	run.Dir = ts.Getenv("WORK")
	run.Env = append(os.Environ(), "URL="+url)
	outb, err := run.CombinedOutput()
	out := ts.Stdout()
	_, _ = out.Write(outb)
	ts.Check(err)
	stopMCPHTTP(ts, srv, out)
}

// stopMCPHTTP sends SIGTERM and fails unless the server exits 0 within 10
// seconds.
func stopMCPHTTP(ts *testscript.TestScript, cmd *exec.Cmd, out io.Writer) {
	ts.Check(cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ts.Fatalf("mcphttp: exit %d after SIGTERM", ee.ExitCode())
		}
		ts.Check(err)
		fmt.Fprintln(out, "exit: 0")
	case <-time.After(10 * time.Second):
		ts.Fatalf("mcphttp: still running 10s after SIGTERM")
	}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpHTTPSession prints what one client session sees.
func mcpHTTPSession(out interface{ Write([]byte) (int, error) }, url, token string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	t := &mcp.StreamableClientTransport{Endpoint: url}
	if token != "" {
		t.HTTPClient = &http.Client{Transport: bearerTransport{token}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "script", Version: "1"}, nil).Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "tools: %s\n", names(tools.Tools, func(t *mcp.Tool) string { return t.Name }))
	if len(tools.Tools) > 0 {
		first := tools.Tools[0].Name
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: first, Arguments: map[string]any{}})
		if err != nil {
			return err
		}
		if text, ok := res.Content[0].(*mcp.TextContent); ok {
			fmt.Fprintf(out, "%s: %s\n", first, text.Text)
		}
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "prompts: %s\n", names(prompts.Prompts, func(p *mcp.Prompt) string { return p.Name }))
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "resources: %s\n", names(resources.Resources, func(r *mcp.Resource) string { return r.URI }))
	return nil
}

// names is the name of each item, space-separated.
func names[T any](items []T, name func(T) string) string {
	var out []string
	for _, it := range items {
		out = append(out, name(it))
	}
	return strings.Join(out, " ")
}
