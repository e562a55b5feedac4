package mcpserve_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

const samplingPlugin = `
def ask(ctx, args):
    return "model said: " + ctx.models.session.complete([
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": args["q"]},
    ], max_tokens = 50)

contribute(tools = [tool(name = "ask", catalogs = "work", run = ask,
    parameters = {"type": "object", "properties": {"q": {"type": "string"}}})])
`

// samplingProtocol is the newest protocol version on which a server may
// send sampling/createMessage while serving a request; 2026-07-28 wants
// multi round-trip results instead (docs/mcp.md).
const samplingProtocol = "2025-11-25"

// samplingSession serves the sampling plugin with the MCP client's model
// as the session model, to a client whose sampling handler is handler
// (nil: a client without the sampling capability).
func samplingSession(t *testing.T, handler func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)) *mcp.ClientSession {
	t.Helper()
	dir := t.TempDir()
	plugin := filepath.Join(dir, "dev", "s")
	testkit.WriteFile(t, filepath.Join(plugin, "plugin.toml"), "id = \"acme.s\"\nversion = \"1.0.0\"\ncapabilities = [\"models\"]\n")
	testkit.WriteFile(t, filepath.Join(plugin, "plugin.star"), samplingPlugin)
	h, ctx := watchedHost(t, starhost.Options{Home: filepath.Join(dir, "home"), Workspace: dir, Dev: []string{plugin},
		Models: mcpserve.SamplingModels(), Isolation: os.Getenv("CRYSTAL_ISOLATION")})
	srv := mcpserve.New(h, mcpserve.Options{Session: starhost.SessionOptions{Model: &mcpserve.SamplingFacts}})
	t.Cleanup(srv.Close)
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"},
		&mcp.ClientOptions{CreateMessageHandler: handler}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: samplingProtocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPSamplingIsTheSessionModel: with SamplingModels, a plugin's session
// model client completes through the calling MCP client
// (sampling/createMessage): system messages become the system prompt,
// max_tokens the bound.
func TestMCPSamplingIsTheSessionModel(t *testing.T) {
	var got *mcp.CreateMessageParams
	cs := samplingSession(t, func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		got = r.Params
		return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "forty-two"}}, nil
	})
	text, r := callText(t, cs, "ask", map[string]any{"q": "meaning?"})
	if r.IsError || text != "model said: forty-two" {
		t.Fatalf("ask = %q (isError %v)", text, r.IsError)
	}
	if got == nil || got.SystemPrompt != "be brief" || got.MaxTokens != 50 || len(got.Messages) != 1 ||
		got.Messages[0].Role != "user" || got.Messages[0].Content.(*mcp.TextContent).Text != "meaning?" {
		t.Errorf("sampling request = %+v", got)
	}
}

// TestMCPSamplingInAWorker: in process isolation the tool runs in a worker;
// its model call crosses the channel as a call within the tool's call, so
// the host serves it with the MCP request's context and samples the client.
func TestMCPSamplingInAWorker(t *testing.T) {
	t.Setenv("CRYSTAL_ISOLATION", "process")
	cs := samplingSession(t, func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "from the client"}}, nil
	})
	if text, r := callText(t, cs, "ask", map[string]any{"q": "meaning?"}); r.IsError || text != "model said: from the client" {
		t.Fatalf("ask in a worker = %q (isError %v), want the client's reply", text, r.IsError)
	}
}

func TestMCPSamplingNeedsTheClientCapability(t *testing.T) {
	cs := samplingSession(t, nil)
	if text, r := callText(t, cs, "ask", map[string]any{"q": "x"}); !r.IsError || !strings.HasPrefix(text, "tool_failed") {
		t.Errorf("ask without client sampling = %q (isError %v), want tool_failed", text, r.IsError)
	}
}
