package mcpserve_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/internal/testkit/hostkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

const mcpTestPlugin = `
def find(ctx, args):
    if args["id"] == "missing":
        return error("not_found", "no item with id missing")
    if args["id"] == "dict":
        return {"id": "dict", "n": 1}
    return "found " + args["id"]

contribute(tools = [
    tool(name = "find", description = "find an item", catalogs = "work", run = find, parameters = {
        "type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"],
    }),
    tool(name = "plan_only", description = "plans", catalogs = "plan", run = lambda ctx, args: "p"),
%s])
`

// startMCP serves a temp dev plugin over an in-memory transport, as an
// embedder would with only starhost and mcpserve, and returns a connected
// SDK client session, the plugin's source path and a channel of
// tools/list_changed notifications.
func startMCP(t *testing.T, cat starhost.Catalog) (*mcp.ClientSession, string, chan struct{}) {
	t.Helper()
	cs, star, changed, _ := startMCPEvents(t, cat)
	return cs, star, changed
}

// startMCPEvents is startMCP that also returns the host's lifecycle events.
func startMCPEvents(t *testing.T, cat starhost.Catalog) (*mcp.ClientSession, string, chan struct{}, chan starhost.Event) {
	t.Helper()
	return startMCPWith(t, cat, "")
}

// startMCPWith is startMCPEvents with extra tool(...) entries in the plugin.
func startMCPWith(t *testing.T, cat starhost.Catalog, extra string) (*mcp.ClientSession, string, chan struct{}, chan starhost.Event) {
	t.Helper()
	dir := t.TempDir()
	plugin := filepath.Join(dir, "dev", "t")
	testkit.WriteFile(t, filepath.Join(plugin, "plugin.toml"), "id = \"acme.t\"\nversion = \"1.0.0\"\n")
	star := filepath.Join(plugin, "plugin.star")
	testkit.WriteFile(t, star, strings.Replace(mcpTestPlugin, "%s", extra, 1))

	events := make(chan starhost.Event, 64)
	h, ctx := watchedHost(t, starhost.Options{Home: filepath.Join(dir, "home"), Workspace: dir, Dev: []string{plugin},
		Events: func(e starhost.Event) {
			select {
			case events <- e:
			default:
			}
		}})
	srv := mcpserve.New(h, mcpserve.Options{Catalog: cat})
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	t.Cleanup(srv.Close)

	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	cctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	cs, err := client.Connect(cctx, ct, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return after the client closed")
		}
	})
	return cs, star, changed, events
}

// watchedHost starts a host with opts and watches its plugin directories
// until the test ends, when ctx ends and the host is closed.
func watchedHost(t testing.TB, opts starhost.Options) (*starhost.Host, context.Context) {
	t.Helper()
	h, _ := hostkit.Start(t, opts) // closed after the watch below ends (cleanups run last first)
	ctx, stop := context.WithCancel(context.Background())
	watching := make(chan struct{})
	watchDone := make(chan error, 1)
	go func() { watchDone <- h.Watch(ctx, func() { close(watching) }) }()
	<-watching
	t.Cleanup(func() {
		stop()
		<-watchDone
	})
	return h, ctx
}

// joined is the names of items, space-separated.
func joined[T any](items []T, name func(T) string) string {
	var out []string
	for _, it := range items {
		out = append(out, name(it))
	}
	return strings.Join(out, " ")
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("tools/call %s: %d content items, want 1", name, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("tools/call %s: content is %T, want text", name, res.Content[0])
	}
	return text.Text, res
}

func TestMCPListAndCall(t *testing.T) {
	cs, _, _ := startMCP(t, starhost.PlanAndWork)

	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) < 2 || res.Tools[0].Name != "find" || res.Tools[1].Name != "plan_only" {
		t.Fatalf("tools/list = %v, want find, plan_only first (catalog order)", toolNames(t, cs))
	}
	if res.Tools[0].Description != "find an item" {
		t.Errorf("find description = %q", res.Tools[0].Description)
	}
	schema, _ := res.Tools[0].InputSchema.(map[string]any)
	if schema["type"] != "object" || schema["required"] == nil {
		t.Errorf("find input schema = %v, want the plugin's parameters", res.Tools[0].InputSchema)
	}

	if text, r := callText(t, cs, "find", map[string]any{"id": "x"}); r.IsError || text != "found x" {
		t.Errorf("find x = %q (isError %v), want found x", text, r.IsError)
	}
	if text, r := callText(t, cs, "find", map[string]any{"id": "dict"}); r.IsError || text != `{"id":"dict","n":1}` {
		t.Errorf("find dict = %q (isError %v)", text, r.IsError)
	} else if m, _ := r.StructuredContent.(map[string]any); m["id"] != "dict" {
		t.Errorf("find dict structured content = %v", r.StructuredContent)
	}
}

func TestMCPToolError(t *testing.T) {
	cs, _, _ := startMCP(t, starhost.PlanAndWork)
	text, r := callText(t, cs, "find", map[string]any{"id": "missing"})
	if !r.IsError || text != "not_found: no item with id missing" {
		t.Errorf("find missing = %q (isError %v), want isError and not_found: no item with id missing", text, r.IsError)
	}
}

func TestMCPInvalidArguments(t *testing.T) {
	cs, _, _ := startMCP(t, starhost.PlanAndWork)
	text, r := callText(t, cs, "find", map[string]any{"id": 7})
	if !r.IsError || !strings.HasPrefix(text, "invalid_arguments: ") {
		t.Errorf("find {id: 7} = %q (isError %v), want isError and invalid_arguments", text, r.IsError)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil ||
		!strings.Contains(err.Error(), `unknown tool "nope"`) {
		t.Errorf("calling an unknown tool: err = %v, want unknown tool", err)
	}
}

func TestMCPCatalog(t *testing.T) {
	cs, _, _ := startMCP(t, starhost.Plan)
	names := toolNames(t, cs)
	if len(names) == 0 || names[0] != "plan_only" || strings.Contains(strings.Join(names, " "), "find") {
		t.Errorf("plan catalog = %v, want plan_only and no find", names)
	}
}

func TestMCPHotReload(t *testing.T) {
	cs, star, changed := startMCP(t, starhost.PlanAndWork)
	if names := toolNames(t, cs); strings.Contains(strings.Join(names, " "), "added") {
		t.Fatalf("tools before the save = %v", names)
	}
	for len(changed) > 0 {
		<-changed
	}
	testkit.WriteFile(t, star, strings.Replace(mcpTestPlugin, "%s",
		`    tool(name = "added", description = "new", catalogs = "work", run = lambda ctx, args: "new"),
`, 1))

	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed within 10s of saving the plugin")
	}
	names := toolNames(t, cs)
	if !strings.Contains(" "+strings.Join(names, " ")+" ", " added ") {
		t.Fatalf("tools after the save = %v, want added", names)
	}
	if text, r := callText(t, cs, "added", map[string]any{}); r.IsError || text != "new" {
		t.Errorf("added = %q (isError %v)", text, r.IsError)
	}
}

// TestAT3_MCPFailedReloadKeepsTools: a save whose top level fails at run
// time keeps the serving generation: the client still lists and calls its
// tools.
func TestAT3_MCPFailedReloadKeepsTools(t *testing.T) {
	cs, star, _, events := startMCPEvents(t, starhost.PlanAndWork)
	testkit.WriteFile(t, star, "x = {}[\"missing\"]\ncontribute()\n")
	deadline := time.After(10 * time.Second)
	for kept := false; !kept; {
		select {
		case e := <-events:
			kept = e.Kind == "kept"
		case <-deadline:
			t.Fatal("no kept event within 10s of saving a failing source")
		}
	}
	if names := toolNames(t, cs); len(names) == 0 || names[0] != "find" {
		t.Fatalf("tools after a failed reload = %v, want find still served", names)
	}
	if text, r := callText(t, cs, "find", map[string]any{"id": "x"}); r.IsError || text != "found x" {
		t.Errorf("find after a failed reload = %q (isError %v)", text, r.IsError)
	}
}
