package mcpserve_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

// TestH27_3_SessionForChoosesTheHostSession: Options.SessionFor chooses the
// host session an MCP session is served by. The MCP session it answers for
// runs its calls in the embedder's session (its session id, its status
// values, its model), and another it answers nil for gets one of its own.
func TestH27_3_SessionForChoosesTheHostSession(t *testing.T) {
	fixture, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "mcp-conformance", "plugin"))
	dir := t.TempDir()
	h, ctx := watchedHost(t, starhost.Options{Home: filepath.Join(dir, "home"), Workspace: dir, Dev: []string{fixture},
		Models: mcpserve.SamplingModels(), Isolation: os.Getenv("CRYSTAL_ISOLATION")})
	mine, err := h.NewSession(ctx, starhost.SessionOptions{Facts: starhost.Facts{SessionID: "agent-1"},
		Model: &starhost.ModelFacts{Provider: "acme", Protocol: "mcp-sampling", Model: "embedder"}})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		agent string // the first MCP session to ask is the agent's
	)
	srv := mcpserve.New(h, mcpserve.Options{Session: starhost.SessionOptions{Model: &mcpserve.SamplingFacts},
		SessionFor: func(id string) *starhost.Session {
			mu.Lock()
			defer mu.Unlock()
			if agent == "" {
				agent = id
			}
			if id == agent {
				return mine
			}
			return nil
		}})
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
	a := connect()
	if got, want := ask(a, "a"), "agent-1 embedder"; got != want {
		t.Errorf("the chosen MCP session: %q, want the embedder's session %q", got, want)
	}
	if got := mine.RenderStatusLine([]string{"client"}); got != "a" {
		t.Errorf("the embedder's session line: %q, want the value its MCP session set", got)
	}
	b := connect()
	if got, want := ask(b, "b"), b.ID()+" client"; got != want {
		t.Errorf("another MCP session: %q, want one of its own %q", got, want)
	}
	if got := mine.RenderStatusLine([]string{"client"}); got != "a" {
		t.Errorf("the embedder's session line after another session's call: %q", got)
	}
}
