package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/contrib"
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

// lockedBuffer is a stderr safe to read while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startMCP serves a temp dev plugin over an in-memory transport and returns
// a connected SDK client session, the plugin's source path and a channel of
// tools/list_changed notifications.
func startMCP(t *testing.T, cat contrib.Catalog) (*mcp.ClientSession, string, chan struct{}) {
	t.Helper()
	return startMCPWith(t, cat, "")
}

// startMCPWith is startMCP with extra tool(...) entries in the plugin.
func startMCPWith(t *testing.T, cat contrib.Catalog, extra string) (*mcp.ClientSession, string, chan struct{}) {
	t.Helper()
	dir := t.TempDir()
	plugin := filepath.Join(dir, "dev", "t")
	if err := os.MkdirAll(plugin, 0o755); err != nil {
		t.Fatal(err)
	}
	writeMCPFile(t, filepath.Join(plugin, "plugin.toml"), "id = \"acme.t\"\nversion = \"1.0.0\"\n")
	star := filepath.Join(plugin, "plugin.star")
	writeMCPFile(t, star, strings.Replace(mcpTestPlugin, "%s", extra, 1))

	stderr := &lockedBuffer{}
	e := &env{global: global{home: filepath.Join(dir, "home"), workspace: dir, dev: []string{plugin}},
		stdin: strings.NewReader(""), stdout: io.Discard, stderr: stderr}
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() {
		err := serveMCP(e, cat, st)
		e.close()
		done <- err
	}()

	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serveMCP: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("serveMCP did not return after the client closed")
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	})
	return cs, star, changed
}

func writeMCPFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
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
	cs, _, _ := startMCP(t, contrib.PlanAndWork)

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
	cs, _, _ := startMCP(t, contrib.PlanAndWork)
	text, r := callText(t, cs, "find", map[string]any{"id": "missing"})
	if !r.IsError || text != "not_found: no item with id missing" {
		t.Errorf("find missing = %q (isError %v), want isError and not_found: no item with id missing", text, r.IsError)
	}
}

func TestMCPInvalidArguments(t *testing.T) {
	cs, _, _ := startMCP(t, contrib.PlanAndWork)
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
	cs, _, _ := startMCP(t, contrib.Plan)
	names := toolNames(t, cs)
	if len(names) == 0 || names[0] != "plan_only" || strings.Contains(strings.Join(names, " "), "find") {
		t.Errorf("plan catalog = %v, want plan_only and no find", names)
	}
}

func TestMCPHotReload(t *testing.T) {
	cs, star, changed := startMCP(t, contrib.PlanAndWork)
	if names := toolNames(t, cs); strings.Contains(strings.Join(names, " "), "added") {
		t.Fatalf("tools before the save = %v", names)
	}
	for len(changed) > 0 {
		<-changed
	}
	writeMCPFile(t, star, strings.Replace(mcpTestPlugin, "%s",
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
