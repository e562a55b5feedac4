package toolsets_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/toolsets"
)

// fakeSets serves MCP servers in memory: each Dial makes a fresh server
// session; the test holds the latest to add tools or kill it, and may hold
// back a redial.
type fakeSets struct {
	mu       sync.Mutex
	server   *mcp.Server
	session  *mcp.ServerSession
	redial   chan struct{} // nil: dial at once
	dials    int
	toolDefs []string
}

func (f *fakeSets) dial(ctx context.Context, name string, _ starhost.ToolSetConfig) (mcp.Transport, error) {
	f.mu.Lock()
	f.dials++
	gate := f.redial
	if f.dials == 1 {
		gate = nil
	}
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	for _, n := range f.toolDefs {
		addTool(srv, n)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.server, f.session = srv, ss
	f.mu.Unlock()
	return ct, nil
}

func addTool(srv *mcp.Server, name string) {
	srv.AddTool(&mcp.Tool{Name: name, Description: "echoes", InputSchema: map[string]any{"type": "object"},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " ok"},
				&mcp.ImageContent{Data: []byte("PNG"), MIMEType: "image/png"}}}, nil
		})
}

// eventually polls cond: the set's reactions are asynchronous (a server
// notification, a dead pipe); the deadline only bounds a hang.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

func state(h *starhost.Host, name string) starhost.ToolSetState {
	for _, s := range h.ToolSets() {
		if s.Name == name {
			return s
		}
	}
	return starhost.ToolSetState{}
}

// TestMC7_ToolSetsAreMCPServers: the home config's tool sets are started as
// MCP servers; their tools are external tools after the plugin tools (one
// named like a plugin tool is left out); tools/list_changed rebuilds the
// catalog and runs attach again; a set that dies is reported, its tools
// answer tool_unavailable, and it is restarted.
func TestMC7_ToolSetsAreMCPServers(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(`
[tool_sets.srv]
command = ["unused-by-this-test"]
catalogs = "plan_and_work"

[tool_sets.off]
command = ["never-started"]
enabled = false
`), 0o644)
	dir := filepath.Join(t.TempDir(), "p")
	testkit.Plugin{ID: "acme.p", Source: `
def attach(ctx):
    print("attach sets=%s" % ",".join([s.name + ":" + str(s.loaded) for s in ctx.env.tool_sets]))

contribute(attach = attach, tools = [tool(name = "clash", catalogs = "work", run = lambda ctx, args: "plugin")])
`}.Write(t, dir)
	var notes testkit.Log[starhost.Note]
	h, err := starhost.New(starhost.Options{Home: home, Workspace: ws, Dev: []string{dir}, Notes: notes.Add})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	noted := func(part string) bool {
		return slices.ContainsFunc(notes.All(), func(n starhost.Note) bool { return strings.Contains(n.String(), part) })
	}
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	f := &fakeSets{toolDefs: []string{"echo", "clash"}, redial: make(chan struct{})}
	r := toolsets.Start(context.Background(), h, toolsets.Options{Dial: f.dial, MinBackoff: time.Millisecond, Notes: notes.Add})
	defer r.Close()

	var names []string
	for _, ti := range mainThread(h).Tools(context.Background(), starhost.PlanAndWork).List() {
		names = append(names, ti.Name+"/"+ti.ToolSet)
	}
	if !slices.Equal(names, []string{"clash/", "echo/srv", "skill/"}) {
		t.Fatalf("catalog %v; want the plugin tool, then the set's tools, then skill (CC6)", names)
	}
	if !noted("has the name of a tool of plugin acme.p; the external tool is left out") {
		t.Error("no note for the shadowed external tool")
	}
	if res := mainThread(h).Tools(context.Background(), starhost.Work).Invoke(context.Background(), "echo", nil); res.Text != "echo ok" || len(res.Parts) != 2 {
		t.Errorf("echo = %+v; want its text and image parts", res)
	}
	if st := state(h, "srv"); !st.Enabled || !st.Effective || !st.Loaded || st.SkipReason != "" || st.Source != "home" {
		t.Errorf("srv state %+v", st)
	}
	if st := state(h, "off"); st.Enabled || st.Effective || st.SkipReason != "disabled" {
		t.Errorf("off state %+v", st)
	}
	if !noted("attach sets=off:False,srv:True") {
		t.Error("attach did not run again with the set loaded (CC3)")
	}

	// tools/list_changed is a reload trigger.
	f.mu.Lock()
	addTool(f.server, "added")
	f.mu.Unlock()
	eventually(t, "the added tool in the catalog", func() bool {
		return mainThread(h).Tools(context.Background(), starhost.Work).Invoke(context.Background(), "added", nil).OK()
	})

	// Death: reported, tools answer tool_unavailable, then restarted.
	snap := mainThread(h).Tools(context.Background(), starhost.Work)
	f.mu.Lock()
	f.session.Close()
	f.mu.Unlock()
	eventually(t, "srv reported down", func() bool { return !state(h, "srv").Effective })
	if st := state(h, "srv"); !st.Loaded || !strings.HasPrefix(st.SkipReason, "died: ") {
		t.Errorf("down state %+v", st)
	}
	if res := snap.Invoke(context.Background(), "echo", nil); !errors.Is(res.Err(), starhost.ErrToolUnavailable) {
		t.Errorf("echo while down = %+v; want tool_unavailable", res)
	}
	if !noted("[ToolSetFailed]") {
		t.Error("no ToolSetFailed note")
	}
	close(f.redial)
	eventually(t, "srv restarted", func() bool { return state(h, "srv").Effective })
	if res := mainThread(h).Tools(context.Background(), starhost.Work).Invoke(context.Background(), "echo", nil); res.Text != "echo ok" {
		t.Errorf("echo after restart = %+v", res)
	}
}
