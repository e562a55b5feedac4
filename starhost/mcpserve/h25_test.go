package mcpserve_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

// TestH25_4_MCPSessionsAreHostSessions: over Streamable HTTP each MCP
// session is a host session of its own. Two clients of the conformance
// fixture call the same tool: each sees its own session id, each status
// value stays on its own session's line, and a model set for one session
// is not the other's.
func TestH25_4_MCPSessionsAreHostSessions(t *testing.T) {
	srv, connect, ask := sessionServer(t, func(*starhost.Host) mcpserve.Options { return mcpserve.Options{} })
	a, b := connect(), connect()
	if got, want := ask(a, "a"), a.ID()+" client"; got != want {
		t.Errorf("a: %q, want %q", got, want)
	}
	if got, want := ask(b, "b"), b.ID()+" client"; got != want {
		t.Errorf("b: %q, want %q", got, want)
	}
	sessions := map[string]*starhost.Session{}
	for ss := range srv.SDK().Sessions() {
		sessions[ss.ID()] = srv.Session(ss)
	}
	sa, sb := sessions[a.ID()], sessions[b.ID()]
	if sa == nil || sb == nil || sa == sb {
		t.Fatalf("host sessions %v for MCP sessions %s and %s", sessions, a.ID(), b.ID())
	}
	line := []string{"client"}
	if la, lb := sa.RenderStatusLine(line), sb.RenderStatusLine(line); la != "a" || lb != "b" {
		t.Errorf("status lines: a %q, b %q; want each client's own value", la, lb)
	}
	sa.SetModel(starhost.ModelFacts{Provider: "acme", Protocol: "mcp-sampling", Model: "other"})
	if got, want := ask(a, "a"), a.ID()+" other"; got != want {
		t.Errorf("a after its model changed: %q, want %q", got, want)
	}
	if got, want := ask(b, "b"), b.ID()+" client"; got != want {
		t.Errorf("b after a's model changed: %q, want %q", got, want)
	}
}

// sessionServer serves the conformance fixture over Streamable HTTP with
// the options opts makes for the started host, each MCP session's model the
// client's sampling unless they say otherwise. It returns the server, a
// way to connect a client, and one to call test_session as a client (the
// tool sets the "client" status field to name and answers the session id
// and model it ran with).
func sessionServer(t *testing.T, opts func(*starhost.Host) mcpserve.Options) (*mcpserve.Server, func() *mcp.ClientSession, func(*mcp.ClientSession, string) string) {
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "mcp-conformance", "plugin"))
	dir := t.TempDir()
	h, ctx := watchedHost(t, starhost.Options{Home: filepath.Join(dir, "home"), Workspace: dir, Dev: []string{fixture},
		Models: mcpserve.SamplingModels(), Isolation: os.Getenv("CRYSTAL_ISOLATION")})
	o := opts(h)
	if o.Session.Model == nil {
		o.Session.Model = &mcpserve.SamplingFacts
	}
	srv := mcpserve.New(h, o)
	t.Cleanup(srv.Close)
	ts := httptest.NewServer(srv.Handler(mcpserve.HTTPOptions{}))
	t.Cleanup(ts.Close)
	connect := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	ask := func(cs *mcp.ClientSession, name string) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_session", Arguments: map[string]any{"name": name}})
		if err != nil || res.IsError {
			t.Fatalf("test_session: %v %+v", err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	return srv, connect, ask
}
