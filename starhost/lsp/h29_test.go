package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// The plugin of issue 29 point 3's sessions: its own functions and
// variables, a name loaded as itself and one under another name, callbacks
// of three kinds.
const h29Plugin = `load("lib/helpers.star", "describe", fmt = "format_count")

LIMIT = 10

def where(ctx, args):
    """Says where the workspace is."""
    return describe(ctx) + fmt(LIMIT)

def label(ctx):
    return ctx.site

def triage(c, inv):
    return None

contribute(
    tools = [tool(name = "where", run = where)],
    placeholders = [placeholder(name = "label", resolve = label)],
    commands = [command(name = "triage", run = triage)],
)
`

const h29Helpers = `def describe(ctx):
    """Describes the workspace of ctx."""
    return ctx.workspace

def format_count(n, unit = "items"):
    return "%d %s" % (n, unit)

_private = 1
`

// h29Session starts a session on a fresh copy of the plugin and opens
// plugin.star; it returns the client, the plugin directory and the URI.
func h29Session(t *testing.T, source string, manifest string) (*client, string, string) {
	t.Helper()
	dir := testkit.Plugin{ID: "acme.h29", Source: source, Manifest: manifest,
		Files: map[string]string{"lib/helpers.star": h29Helpers}}.Write(t, filepath.Join(t.TempDir(), "plug"))
	c := startSession(t, time.Millisecond)
	uri := uriOf(filepath.Join(dir, "plugin.star"))
	c.open(uri, source)
	return c, dir, uri
}

func (c *client) open(uri, text string) {
	c.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri, LanguageID: "starlark", Version: 1, Text: text}})
}

func (c *client) change(uri, text string) {
	c.notify("textDocument/didChange", protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: 2},
		ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: text}}})
}

func at(uri string, line, char int) protocol.TextDocumentPositionParams {
	return protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri},
		Position: protocol.Position{Line: uint32(line), Character: uint32(char)}}
}

// posOf returns the 0-based line and character of the n-th (0-based)
// occurrence of word in text, plus offset characters.
func posOf(t *testing.T, text, word string, n, offset int) (int, int) {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		for from := 0; ; {
			j := strings.Index(l[from:], word)
			if j < 0 {
				break
			}
			if n == 0 {
				return i, from + j + offset
			}
			n--
			from += j + len(word)
		}
	}
	t.Fatalf("%q not in the text", word)
	return 0, 0
}

// TestH29_3_HoverOwnNames: hover on the author's functions and variables,
// in the file and brought by load() (under their own name or another),
// shows the def as written, its docstring, the callbacks it serves and
// where it is defined.
func TestH29_3_HoverOwnNames(t *testing.T) {
	c, _, uri := h29Session(t, h29Plugin, "")
	cases := []struct {
		word string
		n    int
		want []string
	}{
		{"where", 3, []string{"def where(ctx, args)", "Says where the workspace is.", "a tool's run", "Defined at `plugin.star:5`"}},
		{"describe", 1, []string{"def describe(ctx)", "Describes the workspace of ctx.", "Loaded from `lib/helpers.star:1`"}},
		{"fmt", 1, []string{`def format_count(n, unit = \"items\")`, "Loaded from `lib/helpers.star:5`"}},
		{"LIMIT", 1, []string{"LIMIT = 10", "Defined at `plugin.star:3`"}},
		{"label", 2, []string{"def label(ctx)", "a placeholder's resolve", "`site`"}},
	}
	for _, tc := range cases {
		line, char := posOf(t, h29Plugin, tc.word, tc.n, 1)
		h := c.hover(uri, line, char)
		for _, w := range tc.want {
			if !strings.Contains(h, w) {
				t.Errorf("hover on %s (%d:%d) = %s; lacks %q", tc.word, line, char, h, w)
			}
		}
	}
	line, char := posOf(t, h29Plugin, "tool(", 0, 1) // the predeclared names keep their documentation
	if h := c.hover(uri, line, char); !strings.Contains(h, "model-facing name") {
		t.Errorf("hover on tool = %s", h)
	}
}

// TestH29_3_CompletionOwnNamesNoJunk: completion offers the author's names
// (locals, the file's top level, loaded names) before the predeclared
// ones, a load()'s name string offers the loaded file's public names, and
// nothing offered is not a name (the guards `*`, `+`, `<format>` of the
// predeclared table are gone).
func TestH29_3_CompletionOwnNamesNoJunk(t *testing.T) {
	c, _, uri := h29Session(t, h29Plugin, "")
	text := strings.Replace(h29Plugin, "    return None\n", "    return \n", 1)
	c.change(uri, text)
	line, char := posOf(t, text, "return ", 2, len("return "))
	got := c.complete(uri, line, char)
	containsAll(t, "completion in triage", got, "inv", "c", "where", "LIMIT", "describe", "fmt", "label", "tool", "len")
	for _, junk := range []string{"*", "+", "<format>", "format_count", "_private"} {
		if slices.Contains(got, junk) {
			t.Errorf("completion offers %q: %v", junk, got)
		}
	}
	for _, g := range got {
		if !isIdent(g) {
			t.Errorf("completion offers %q, which is no name", g)
		}
	}
	if i, j := slices.Index(got, "where"), slices.Index(got, "tool"); i < 0 || j < 0 || i > j {
		t.Errorf("the author's names do not come first: %v", got)
	}

	// In a call of the author's function: its parameters as keywords
	// first, then the names an argument may be.
	text = h29Plugin + "x = fmt(\n"
	c.change(uri, text)
	got = c.complete(uri, strings.Count(h29Plugin, "\n"), len("x = fmt("))
	if len(got) < 3 || got[0] != "n =" || got[1] != "unit =" || !slices.Contains(got, "LIMIT") {
		t.Errorf("completion in fmt( = %v; want n =, unit =, then the names", got)
	}

	text = strings.Replace(h29Plugin, `"describe", fmt`, `"describe", "", fmt`, 1)
	c.change(uri, text)
	got = c.complete(uri, 0, len(`load("lib/helpers.star", "describe", "`))
	if !slices.Equal(got, []string{"describe", "format_count"}) {
		t.Errorf("completion of a load() name = %v; want the helpers' public names describe, format_count", got)
	}
}

// TestH29_3_CtxCompletionByKind: after ctx. (or whatever the callback's
// first parameter is called) completion offers the fields of the callback
// kind the function serves, exactly the ones check accepts there:
// completing a placeholder's ctx. and checking each offered field finds
// nothing.
func TestH29_3_CtxCompletionByKind(t *testing.T) {
	c, _, uri := h29Session(t, h29Plugin, "")
	complete := func(old, typed string) []string {
		text := strings.Replace(h29Plugin, old, typed, 1)
		c.change(uri, text)
		line, char := posOf(t, text, typed, 0, len(typed))
		return c.complete(uri, line, char)
	}
	placeholder := complete("    return ctx.site\n", "    return ctx.")
	containsAll(t, "ctx. in a placeholder's resolve", placeholder, "site", "workspace", "session")
	tool := complete("    return describe(ctx) + fmt(LIMIT)\n", "    x = ctx.")
	containsAll(t, "ctx. in a tool's run", tool, "workspace", "store", "status")
	command := complete("    return None\n", "    c.")
	containsAll(t, "c. in a command's run", command, "out", "workspace")
	// A lambda written inline: the line does not parse until the "."
	// typed after ctx is blanked.
	text := strings.Replace(h29Plugin, "resolve = label)", "resolve = lambda ctx: ctx.)", 1)
	c.change(uri, text)
	line, char := posOf(t, text, "lambda ctx: ctx.", 0, len("lambda ctx: ctx."))
	lambda := c.complete(uri, line, char)
	containsAll(t, "ctx. in an inline placeholder lambda", lambda, "site", "workspace")
	if slices.Contains(lambda, "out") {
		t.Errorf("ctx. in an inline placeholder lambda offers out: %v", lambda)
	}
	for name, got := range map[string][]string{"placeholder": placeholder, "tool": tool, "command": command} {
		for _, field := range []string{"site", "out", "thread", "contributions"} {
			offered := slices.Contains(got, field)
			want := (name == "placeholder" && field == "site") || (name == "command" && field == "out")
			if offered != want {
				t.Errorf("%s ctx. offers %s: %v, want %v (%v)", name, field, offered, want, got)
			}
		}
	}
	// What completion offers, check accepts.
	for _, field := range placeholder {
		src := strings.Replace(h29Plugin, "    return ctx.site\n", "    return ctx."+field+"\n", 1)
		f, err := builtins.Dialect.Parse("plugin.star", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := builtins.Dialect.Parse("lib/helpers.star", h29Helpers, 0)
		r := check.Run(check.Bundle{Plugin: "acme.h29", Files: map[string]*syntax.File{"plugin.star": f, "lib/helpers.star": h},
			Capabilities: []string{"models", "data"}})
		for _, d := range r.Diagnostics {
			if d.Code == contrib.CtxFieldUnknown {
				t.Errorf("completion offered ctx.%s in a placeholder, which check rejects: %s", field, d.Message)
			}
		}
	}
}

func (c *client) signature(uri string, line, char int) *protocol.SignatureHelp {
	c.t.Helper()
	var h *protocol.SignatureHelp
	c.call("textDocument/signatureHelp", protocol.SignatureHelpParams{TextDocumentPositionParams: at(uri, line, char)}, &h)
	return h
}

// TestH29_3_SignatureHelp: inside a predeclared constructor's call and
// inside a call of the author's function (its own or loaded, under another
// name), signature help shows the parameters and which one the cursor is
// on, by position or by keyword.
func TestH29_3_SignatureHelp(t *testing.T) {
	c, _, uri := h29Session(t, h29Plugin, "")
	cases := []struct {
		typed, label, active string
		doc                  string
	}{
		{`tool(name = "x", run = `, "tool(name, run, description", "run", "run(ctx, args)"},
		{`tool("x", `, "tool(name, run, description", "run", ""},
		{`describe(`, "describe(ctx)", "ctx", "Describes the workspace of ctx."},
		{`fmt(1, `, `fmt(n, unit = "items")`, `unit = "items"`, ""},
		{`where(ctx, `, "where(ctx, args)", "args", "Says where"},
	}
	for _, tc := range cases {
		text := h29Plugin + "x = " + tc.typed + "\n"
		c.change(uri, text)
		line, char := posOf(t, text, "x = "+tc.typed, 0, len("x = "+tc.typed))
		h := c.signature(uri, line, char)
		if h == nil || len(h.Signatures) != 1 {
			t.Errorf("signature help in %s = %+v", tc.typed, h)
			continue
		}
		sig := h.Signatures[0]
		if !strings.HasPrefix(sig.Label, tc.label) || h.ActiveParameter == nil || int(*h.ActiveParameter) >= len(sig.Parameters) {
			t.Errorf("signature help in %s: label %q, active %v", tc.typed, sig.Label, h.ActiveParameter)
			continue
		}
		var span [2]int
		data, _ := json.Marshal(sig.Parameters[*h.ActiveParameter].Label)
		if err := json.Unmarshal(data, &span); err != nil || span[0] > span[1] || span[1] > len(sig.Label) {
			t.Errorf("signature help in %s: parameter label %s", tc.typed, data)
			continue
		}
		if got := sig.Label[span[0]:span[1]]; got != tc.active {
			t.Errorf("signature help in %s: active parameter %q, want %q", tc.typed, got, tc.active)
		}
		if data, _ := json.Marshal(sig); !strings.Contains(string(data), tc.doc) {
			t.Errorf("signature help in %s: %s lacks %q", tc.typed, data, tc.doc)
		}
	}
	c.change(uri, h29Plugin+"x = len(\n")
	if h := c.signature(uri, len(strings.Split(h29Plugin, "\n"))-1, len("x = len(")); h != nil {
		t.Errorf("signature help for a call nobody documents = %+v; want none", h)
	}
}

// TestH29_3_ReferencesAndRename: references of a loaded function are its
// def, the load's string and every use in every file of the bundle;
// renaming it rewrites all of them; renaming a function loaded under
// another name rewrites the load's string but not the other name; a
// parameter renames within its function; a predeclared name and a name
// that is taken are refused.
func TestH29_3_ReferencesAndRename(t *testing.T) {
	c, dir, uri := h29Session(t, h29Plugin, "")
	helpers := uriOf(filepath.Join(dir, "lib", "helpers.star"))
	line, char := posOf(t, h29Plugin, "describe(ctx)", 0, 2)

	var locs []protocol.Location
	c.call("textDocument/references", protocol.ReferenceParams{TextDocumentPositionParams: at(uri, line, char),
		Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &locs)
	var got []string
	for _, l := range locs {
		got = append(got, filepath.Base(pathOf(l.URI))+":"+span(l.Range))
	}
	want := []string{"helpers.star:0:4-12", "plugin.star:0:26-34", "plugin.star:6:11-19"}
	if !slices.Equal(got, want) {
		t.Errorf("references of describe = %v; want %v", got, want)
	}

	rename := func(uri string, line, char int, name string) (map[string][]string, error) {
		var edit *protocol.WorkspaceEdit
		err := c.conn.Call(context.Background(), "textDocument/rename", protocol.RenameParams{TextDocumentPositionParams: at(uri, line, char), NewName: name}, &edit)
		out := map[string][]string{}
		if edit != nil {
			for u, es := range edit.Changes {
				for _, e := range es {
					out[filepath.Base(pathOf(u))] = append(out[filepath.Base(pathOf(u))], span(e.Range)+"="+e.NewText)
				}
			}
		}
		return out, err
	}
	edits, err := rename(uri, line, char, "explain")
	if err != nil || !slices.Equal(edits["helpers.star"], []string{"0:4-12=explain"}) ||
		!slices.Equal(edits["plugin.star"], []string{"0:26-34=explain", "6:11-19=explain"}) {
		t.Errorf("rename describe = %v, %v", edits, err)
	}
	// format_count is loaded as fmt: its def and the load's string change, fmt stays.
	edits, err = rename(helpers, 4, 6, "count_text")
	if err != nil || !slices.Equal(edits["helpers.star"], []string{"4:4-16=count_text"}) ||
		!slices.Equal(edits["plugin.star"], []string{"0:44-56=count_text"}) {
		t.Errorf("rename format_count = %v, %v", edits, err)
	}
	// A parameter: within its function only (label's ctx is another).
	line, char = posOf(t, h29Plugin, "args", 0, 1)
	edits, err = rename(uri, line, char, "arguments")
	if err != nil || len(edits) != 1 || !slices.Equal(edits["plugin.star"], []string{"4:15-19=arguments"}) {
		t.Errorf("rename args = %v, %v", edits, err)
	}
	line, char = posOf(t, h29Plugin, "ctx)", 0, 1)
	edits, err = rename(uri, line, char, "context")
	if err != nil || !slices.Equal(edits["plugin.star"], []string{"4:10-13=context", "6:20-23=context"}) {
		t.Errorf("rename where's ctx = %v, %v", edits, err)
	}
	line, char = posOf(t, h29Plugin, "tool(", 0, 1)
	if _, err := rename(uri, line, char, "tool2"); err == nil || !strings.Contains(err.Error(), "only the plugin's own names") {
		t.Errorf("rename of the predeclared tool: err = %v", err)
	}
	line, char = posOf(t, h29Plugin, "LIMIT", 0, 1)
	if _, err := rename(uri, line, char, "where"); err == nil || !strings.Contains(err.Error(), "already names something") {
		t.Errorf("rename LIMIT to where: err = %v", err)
	}
	line, char = posOf(t, h29Plugin, "describe(ctx)", 0, 2)
	if _, err := rename(uri, line, char, "args"); err == nil || !strings.Contains(err.Error(), "would hide") {
		t.Errorf("rename describe to args, a parameter where it is used: err = %v", err)
	}
	line, char = posOf(t, h29Plugin, "args", 0, 1)
	if _, err := rename(uri, line, char, "describe"); err == nil || !strings.Contains(err.Error(), "would hide") {
		t.Errorf("rename the parameter args to describe, a global used beside it: err = %v", err)
	}
	line, char = posOf(t, h29Plugin, "LIMIT", 0, 1)
	if _, err := rename(uri, line, char, "for"); err == nil {
		t.Errorf("rename LIMIT to the keyword for: no error")
	}
}

// span is a one-line range as the tests write it: line:start-end.
func span(r protocol.Range) string {
	return fmt.Sprintf("%d:%d-%d", r.Start.Line, r.Start.Character, r.End.Character)
}

// TestH29_3_CodeActions: the fixes check suggests are code actions on the
// diagnostics the editor sends back: a misspelled ctx field, keyword and
// value are replaced by check's "did you mean"; a ctx field that needs a
// capability adds it to plugin.toml; a callback given as a string is given
// as the function.
func TestH29_3_CodeActions(t *testing.T) {
	source := strings.NewReplacer(
		"return ctx.site", "return ctx.sitte + ctx.models.session.name",
		`tool(name = "where", run = where)`, `tool(name = "where", run = "where", catalogs = "wrk")`,
		`command(name = "triage", run = triage)`, `command(name = "triage", run = triage, descripton = "d")`,
	).Replace(h29Plugin)
	c, dir, uri := h29Session(t, source, "")
	diags := c.published(uri)
	type action struct {
		Title string                 `json:"title"`
		Kind  string                 `json:"kind"`
		Edit  protocol.WorkspaceEdit `json:"edit"`
	}
	var actions []action
	c.call("textDocument/codeAction", map[string]any{
		"textDocument": protocol.TextDocumentIdentifier{URI: uri},
		"range":        protocol.Range{},
		"context":      map[string]any{"diagnostics": diags},
	}, &actions)
	got := map[string]string{}
	for _, a := range actions {
		for u, es := range a.Edit.Changes {
			for _, e := range es {
				got[a.Title] = filepath.Base(pathOf(u)) + ":" + span(e.Range) + "=" + e.NewText
			}
		}
		if a.Kind != "quickfix" {
			t.Errorf("action %q has kind %q", a.Title, a.Kind)
		}
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "plugin.toml"))
	if err != nil {
		t.Fatal(err)
	}
	tomlLines := strings.Count(string(manifest), "\n")
	want := map[string]string{
		"Change to site":                                  "plugin.star:9:15-20=site",
		`Change to "work"`:                                "plugin.star:15:61-64=work",
		"Change to description":                           "plugin.star:17:55-65=description",
		`Add "models" to capabilities in plugin.toml`:     "plugin.toml:" + strconv.Itoa(tomlLines) + ":0-0=capabilities = [\"models\"]\n",
		`Pass the function where, not the string "where"`: "plugin.star:15:40-47=where",
	}
	for title, edit := range want {
		if got[title] != edit {
			t.Errorf("action %q = %q; want %q\n(all: %v)\n(diagnostics: %+v)", title, got[title], edit, got, diags)
		}
	}
}

// kindsPlugin has a callback of every ctx kind; FIELD is where a ctx
// field is read, CURSOR where completion is asked.
const kindsPlugin = `def tool_run(ctx, args):
    return ctx.FIELD

def command_run(ctx, inv):
    return ctx.FIELD

def resolve(ctx):
    return ctx.FIELD

def hook_run(ctx, payload):
    return ctx.FIELD

def observe(ctx, ev):
    return ctx.FIELD

def tick(ctx):
    return ctx.FIELD

contribute(
    tools = [tool(name = "t", run = tool_run)],
    commands = [command(name = "c", run = command_run)],
    placeholders = [placeholder(name = "p", resolve = resolve)],
    hooks = [hook("tool_call", run = hook_run)],
    thread_observers = [thread_observer(run = observe)],
    timers = [timer(every = "5s", run = tick)],
)
`

// TestH29_3_CtxCompletionIsWhatCheckAccepts: for a callback of every ctx
// kind, the fields completion offers after ctx. are exactly those check
// accepts there: each offered field checks clean, each field left out is
// rejected as CtxFieldUnknown.
func TestH29_3_CtxCompletionIsWhatCheckAccepts(t *testing.T) {
	functions := []string{"tool_run", "command_run", "resolve", "hook_run", "observe", "tick"}
	var all []string
	for _, m := range builtins.CtxMembers() {
		all = append(all, m.Name)
	}
	rejected := func(fn, field string) bool {
		lines := strings.Split(kindsPlugin, "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "def "+fn+"(") {
				lines[i+1] = "    return ctx." + field
			}
		}
		src := strings.ReplaceAll(strings.Join(lines, "\n"), "ctx.FIELD", "None")
		f, err := builtins.Dialect.Parse("plugin.star", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := check.Run(check.Bundle{Plugin: "acme.kinds", Files: map[string]*syntax.File{"plugin.star": f},
			Capabilities: []string{"models", "data"}})
		for _, d := range r.Diagnostics {
			if d.Code == contrib.CtxFieldUnknown {
				return true
			}
		}
		return false
	}
	for i, fn := range functions {
		text := strings.ReplaceAll(kindsPlugin, "ctx.FIELD", "None")
		lines := strings.Split(text, "\n")
		lines[3*i+1] = "    return ctx."
		text = strings.Join(lines, "\n")
		var offered []string
		for _, c := range Complete(text, 3*i+1, len("    return ctx.")) {
			offered = append(offered, c.Label)
		}
		if len(offered) == 0 {
			t.Errorf("%s: nothing offered after ctx.", fn)
		}
		for _, field := range all {
			if got, want := slices.Contains(offered, field), !rejected(fn, field); got != want {
				t.Errorf("%s: completion offers ctx.%s: %v; check accepts it: %v", fn, field, got, want)
			}
		}
	}
}

// TestH29_3_HoverCtxOfItsKind: hover on a callback's ctx parameter names
// the callbacks it serves and lists only the fields of their kind.
func TestH29_3_HoverCtxOfItsKind(t *testing.T) {
	c, _, uri := h29Session(t, h29Plugin, "")
	line, char := posOf(t, h29Plugin, "ctx.site", 0, 1)
	h := c.hover(uri, line, char)
	if !strings.Contains(h, "a placeholder's resolve") || !strings.Contains(h, "`site`") || strings.Contains(h, "`out`") {
		t.Errorf("hover on a placeholder's ctx = %s", h)
	}
	line, char = posOf(t, h29Plugin, "c, inv", 0, 0)
	if h := c.hover(uri, line, char); !strings.Contains(h, "a command's run") || !strings.Contains(h, "`out`") || strings.Contains(h, "`site`") {
		t.Errorf("hover on a command's c = %s", h)
	}
}

// TestH29_3_CodeActionStyleFix: a style warning buildifier can fix (an
// unused load) has a quick fix that rewrites the file with the fix.
func TestH29_3_CodeActionStyleFix(t *testing.T) {
	source := strings.Replace(h29Plugin, "describe(ctx) + fmt(LIMIT)", "describe(ctx)", 1)
	c, _, uri := h29Session(t, source, "")
	diags := c.published(uri)
	var actions []protocol.CodeAction
	c.call("textDocument/codeAction", map[string]any{"textDocument": protocol.TextDocumentIdentifier{URI: uri},
		"range": protocol.Range{}, "context": map[string]any{"diagnostics": diags}}, &actions)
	for _, a := range actions {
		if a.Title == "Fix every StyleUnusedLoad of the file (and format it)" {
			edits := a.Edit.Changes[uri]
			if want := strings.Replace(source, `, fmt = "format_count"`, "", 1); len(edits) != 1 || edits[0].NewText != want {
				t.Errorf("the fix = %+v; want the file without the unused load:\n%s", edits, want)
			}
			return
		}
	}
	t.Errorf("no fix of the unused load among %+v (diagnostics %+v)", actions, diags)
}

// TestH29_3_CodeActionDeclareStatusField: status.set("name", …) of a field
// the plugin never declares has a quick fix that declares it in
// contribute(), adding status_fields when there is none; with the list
// there, the entry joins it.
func TestH29_3_CodeActionDeclareStatusField(t *testing.T) {
	for _, tc := range []struct{ source, want string }{
		{strings.Replace(h29Plugin, "    return None\n", "    c.status.set(\"queue\", \"3\")\n    return None\n", 1),
			"contribute(\n    status_fields = [status_field(name = \"queue\")],\n"},
		{strings.Replace(strings.Replace(h29Plugin, "    return None\n", "    c.status.set(\"queue\", \"3\")\n    return None\n", 1),
			"contribute(\n", "contribute(\n    status_fields = [status_field(name = \"budget\")],\n", 1),
			"    status_fields = [status_field(name = \"budget\"), status_field(name = \"queue\")],\n"},
	} {
		c, _, uri := h29Session(t, tc.source, "")
		diags := c.published(uri)
		var actions []protocol.CodeAction
		c.call("textDocument/codeAction", map[string]any{"textDocument": protocol.TextDocumentIdentifier{URI: uri},
			"range": protocol.Range{}, "context": map[string]any{"diagnostics": diags}}, &actions)
		found := false
		for _, a := range actions {
			if a.Title != `Declare the status field "queue"` {
				continue
			}
			found = true
			edits := a.Edit.Changes[uri]
			if len(edits) != 1 {
				t.Fatalf("edits = %+v", edits)
			}
			lines := strings.SplitAfter(tc.source, "\n")
			e := edits[0]
			l := lines[e.Range.Start.Line]
			got := l[:e.Range.Start.Character] + e.NewText + l[e.Range.Start.Character:]
			if got != tc.want {
				t.Errorf("the declaring line = %q; want %q", got, tc.want)
			}
		}
		if !found {
			t.Errorf("no action declares queue: %+v (diagnostics %+v)", actions, diags)
		}
	}
}
