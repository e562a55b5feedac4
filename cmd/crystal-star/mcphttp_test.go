package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
	prog, err := exec.LookPath(filepath.Join(strings.Split(ts.Getenv("PATH"), string(os.PathListSeparator))[0], "crystal-star"))
	ts.Check(err)
	cmd := exec.Command(prog, args...)
	cmd.Dir = ts.Getenv("WORK")
	cmd.Env = os.Environ()
	for _, k := range []string{"PATH", "HOME", "CRYSTAL_HOME", "WORK", "TMPDIR", mcpTokenEnv} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	stderr, err := cmd.StderrPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	url := ""
	for url == "" && lines.Scan() {
		url, _ = strings.CutPrefix(lines.Text(), "mcp: serving Streamable HTTP on ")
	}
	if url == "" {
		ts.Fatalf("mcphttp: the server printed no endpoint")
	}
	go func() {
		for lines.Scan() { // notes; keep the pipe drained
		}
	}()
	out := ts.Stdout()
	ts.Check(mcpHTTPSession(out, url, ts.Getenv(mcpTokenEnv)))
	req, _ := http.NewRequest("POST", url, strings.NewReader("{}"))
	req.Host = "evil.example.com"
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	resp.Body.Close()
	fmt.Fprintf(out, "foreign host: %d\n", resp.StatusCode)

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
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	fmt.Fprintf(out, "tools: %s\n", strings.Join(names, " "))
	if len(names) > 0 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: names[0], Arguments: map[string]any{}})
		if err != nil {
			return err
		}
		if text, ok := res.Content[0].(*mcp.TextContent); ok {
			fmt.Fprintf(out, "%s: %s\n", names[0], text.Text)
		}
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		return err
	}
	names = nil
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	fmt.Fprintf(out, "prompts: %s\n", strings.Join(names, " "))
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		return err
	}
	names = nil
	for _, r := range resources.Resources {
		names = append(names, r.URI)
	}
	fmt.Fprintf(out, "resources: %s\n", strings.Join(names, " "))
	return nil
}
