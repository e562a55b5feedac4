package lsp

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/format"
)

const sessionPlugin = `load("lib/helpers.star", "describe")

def where(ctx, args):
    return ctx.worksapce + describe(ctx)

contribute(
    tools = [tool(name = "where", catalogs = "work", run = where)],
    status_fields = [status_field(name = "queue")],
)
`

// client is the editor side of a scripted session.
type client struct {
	t     testing.TB
	conn  *jsonrpc2.Conn
	diags chan published
	init  protocol.InitializeResult // the server's answer to initialize
}

// serve starts a session over a pipe, its checks debounced by debounce,
// and returns the client's end of it; the session ends with the test, and
// Serve must then return nil.
func serve(tb testing.TB, debounce time.Duration) net.Conn {
	tb.Helper()
	serverEnd, clientEnd := net.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), serverEnd, Options{Debounce: debounce,
			Check: starhost.Options{Home: tb.TempDir(), Workspace: tb.TempDir()}})
	}()
	tb.Cleanup(func() {
		clientEnd.Close()
		if err := <-done; err != nil {
			tb.Errorf("Serve = %v", err)
		}
	})
	return clientEnd
}

// newClient wraps the client's end of a session; the diagnostics the
// server publishes queue for published.
func newClient(tb testing.TB, end net.Conn) *client {
	c := &client{t: tb, diags: make(chan published, 64)}
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(end, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == "textDocument/publishDiagnostics" && req.Params != nil {
				var p published
				if err := json.Unmarshal(*req.Params, &p); err == nil {
					c.diags <- p
				}
			}
			return nil, nil
		}))
	tb.Cleanup(func() { c.conn.Close() })
	return c
}

// startSession is an editor's session, initialized (c.init holds the
// server's capabilities); it ends with the test.
func startSession(tb testing.TB, debounce time.Duration) *client {
	tb.Helper()
	c := newClient(tb, serve(tb, debounce))
	c.call("initialize", protocol.InitializeParams{}, &c.init)
	c.notify("initialized", protocol.InitializedParams{})
	return c
}

// published is a publishDiagnostics notification as the client reads it
// (glsp's IntegerOrString cannot be decoded: its UnmarshalJSON has a value
// receiver).
type published struct {
	URI         string `json:"uri"`
	Diagnostics []diag `json:"diagnostics"`
}

type diag struct {
	Range    protocol.Range `json:"range"`
	Severity int            `json:"severity"`
	Code     string         `json:"code"`
	Source   string         `json:"source"`
	Message  string         `json:"message"`
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	if err := c.conn.Call(context.Background(), method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// published waits for the next diagnostics of uri.
func (c *client) published(uri string) []diag {
	c.t.Helper()
	for {
		select {
		case p := <-c.diags:
			if p.URI == uri {
				return p.Diagnostics
			}
		case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
			c.t.Fatalf("no diagnostics published for %s", uri)
		}
	}
}

func (c *client) hover(uri string, line, char int) string {
	c.t.Helper()
	var h *protocol.Hover
	c.call("textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: uint32(line), Character: uint32(char)}}}, &h)
	if h == nil {
		return ""
	}
	data, _ := json.Marshal(h.Contents)
	return string(data)
}

func (c *client) complete(uri string, line, char int) []string {
	c.t.Helper()
	var items []protocol.CompletionItem
	c.call("textDocument/completion", protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: uint32(line), Character: uint32(char)}}}, &items)
	var labels []string
	for _, it := range items {
		labels = append(labels, it.Label)
	}
	return labels
}

func containsAll(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("%s: %v lacks %q", what, got, w)
		}
	}
}

// TestLSPSession drives the server as an editor would: initialize, open a
// plugin file with a mistake, receive its diagnostics, fix it as unsaved
// text and receive the clearing, then hover, completion, definition across
// load(), formatting, shutdown and exit.
func TestLSPSession(t *testing.T) {
	dir := testkit.Plugin{ID: "acme.lsp", Source: sessionPlugin,
		Files: map[string]string{"lib/helpers.star": "def describe(ctx):\n    return ctx.workspace\n"}}.Write(t, filepath.Join(t.TempDir(), "plug"))
	c := startSession(t, time.Millisecond)
	if c.init.Capabilities.HoverProvider != true || c.init.Capabilities.DocumentFormattingProvider != true {
		t.Errorf("capabilities = %+v", c.init.Capabilities)
	}

	uri := uriOf(filepath.Join(dir, "plugin.star"))
	c.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri, LanguageID: "starlark", Version: 1, Text: sessionPlugin}})
	diags := c.published(uri)
	if len(diags) != 1 || diags[0].Code != "CtxFieldUnknown" || diags[0].Severity != 1 || diags[0].Source != "crystal-star" ||
		diags[0].Range.Start != (protocol.Position{Line: 3, Character: 15}) || diags[0].Range.End.Character != 24 ||
		!strings.Contains(diags[0].Message, `did you mean "workspace"?`) {
		t.Errorf("diagnostics on open = %+v", diags)
	}

	fixed := strings.Replace(sessionPlugin, "worksapce", "workspace", 1)
	c.notify("textDocument/didChange", protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: 2},
		ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: fixed}}})
	if diags := c.published(uri); len(diags) != 0 {
		t.Errorf("diagnostics after the fix = %+v; want none", diags)
	}
	c.notify("textDocument/didSave", protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Text: &fixed})
	if diags := c.published(uri); len(diags) != 0 {
		t.Errorf("diagnostics after save = %+v; want none", diags)
	}

	if h := c.hover(uri, 6, 14); !strings.Contains(h, "tool(name, run, description") || !strings.Contains(h, "model-facing name") ||
		!strings.Contains(h, "Returns a `tool` entry") { // the table, then docs/api.md
		t.Errorf("hover on tool = %s", h)
	}
	if h := c.hover(uri, 6, 36); !strings.Contains(h, "catalogs = ...") || !strings.Contains(h, "plan_and_work") {
		t.Errorf("hover on the catalogs keyword = %s", h)
	}
	if h := c.hover(uri, 3, 16); !strings.Contains(h, "ctx.workspace") {
		t.Errorf("hover on ctx.workspace = %s", h)
	}

	edit := func(text string) {
		c.notify("textDocument/didChange", protocol.DidChangeTextDocumentParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: 3},
			ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: text}}})
	}
	edit(fixed + "x = ctx.\n")
	containsAll(t, "completion after ctx.", c.complete(uri, 9, 8), "workspace", "session", "store", "status")
	edit(fixed + "x = ctx.session.\n")
	containsAll(t, "completion after ctx.session.", c.complete(uri, 9, 16), "model", "thinking")
	edit(fixed + "y = tool(\n")
	containsAll(t, "completion in tool(", c.complete(uri, 9, 9), "name", "run", "catalogs", "read_only")
	edit(fixed + "z = hook(\"\n")
	containsAll(t, "completion of hook events", c.complete(uri, 9, 10), "tool_call", "session_started")
	edit(fixed + "w = tool(catalogs = \"\n")
	containsAll(t, "completion of catalogs", c.complete(uri, 9, 21), "plan", "work", "plan_and_work")
	edit(fixed + "def f(ctx, args):\n    ctx.status.set(\"\n")
	containsAll(t, "completion of status fields", c.complete(uri, 10, 20), "queue")
	edit(fixed)

	var loc protocol.Location
	c.call("textDocument/definition", protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: 0, Character: 28}}}, &loc)
	if loc.URI != uriOf(filepath.Join(dir, "lib", "helpers.star")) || loc.Range.Start.Line != 0 {
		t.Errorf("definition of describe = %+v", loc)
	}

	unformatted := "contribute(tools=[tool(name='where',catalogs='work',run=lambda ctx,args:ctx.workspace)])\n"
	edit(unformatted)
	var edits []protocol.TextEdit
	c.call("textDocument/formatting", protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri}}, &edits)
	want, _ := format.Source("plugin.star", []byte(unformatted))
	if len(edits) != 1 || edits[0].NewText != string(want) || edits[0].Range.Start != (protocol.Position{}) {
		t.Errorf("formatting = %+v; want one edit to %q", edits, want)
	}

	c.call("shutdown", nil, nil)
	_ = c.conn.Notify(context.Background(), "exit", nil) // Serve returns nil: checked as the test ends
}

func TestHoverTargetsAndHooks(t *testing.T) {
	text := "prompt_section(run = f, replace = TARGET_IDENTITY)\nhook(\"tool_call\", f)\n"
	if h := Hover(text, 0, 40); !strings.Contains(h, "named default of `prompt_section`") {
		t.Errorf("hover on TARGET_IDENTITY = %q", h)
	}
	if h := Hover(text, 1, 8); !strings.Contains(h, "replaces the name or the arguments") {
		t.Errorf("hover on a hook event = %q", h)
	}
	if h := Hover(text, 0, 17); !strings.Contains(h, "run(ctx, req") {
		t.Errorf("hover on a point keyword = %q", h)
	}
}

// TestHoverBareCtx: the bare ctx parameter, in the def and in the body, is
// documented with its members.
func TestHoverBareCtx(t *testing.T) {
	text := "def run(ctx, args):\n    return ctx\n"
	for _, pos := range [][2]int{{0, 9}, {1, 12}} {
		if h := Hover(text, pos[0], pos[1]); !strings.Contains(h, "`ctx`:") || !strings.Contains(h, "`session`") {
			t.Errorf("hover on ctx at %v = %q, want the ctx documentation", pos, h)
		}
	}
}

// TestAPIDocNamesEveryKeyword keeps docs/api.md, which hover shows, in step
// with the signature table check and completion use: the section of every
// hand-written constructor names each of its keywords.
func TestAPIDocNamesEveryKeyword(t *testing.T) {
	generated := func(name string) bool {
		p := contrib.LookupPoint(contrib.PointName(name))
		return p != nil && !p.Kind
	}
	for _, sig := range builtins.Signatures() {
		if generated(sig.Name) {
			continue // points share one section, generated from the table (docs/points.md)
		}
		section := apiSection(sig.Name)
		if section == "" {
			t.Errorf("docs/api.md has no section for %s", sig.Name)
			continue
		}
		for _, p := range sig.Params {
			if generated(p.Entry) {
				continue // contribute's point keywords: one row names them all
			}
			if !strings.Contains(section, p.Name) {
				t.Errorf("docs/api.md, section %s, never names the keyword %s", sig.Name, p.Name)
			}
		}
	}
}
