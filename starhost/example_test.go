package starhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// writeExamplePlugin writes files (relative path → content) into dir/name and
// returns the plugin directory.
func writeExamplePlugin(dir, name string, files map[string]string) string {
	root := filepath.Join(dir, name)
	if err := testkit.WriteFiles(root, files); err != nil {
		log.Fatal(err)
	}
	return root
}

// startExampleHost starts a host over one development plugin. Home and workspace are
// fresh temporary directories, so no real configuration, trust file or
// installed plugin is read. The returned cleanup closes the host and removes
// the directories.
func startExampleHost(opts starhost.Options, files map[string]string) (*starhost.Host, func()) {
	tmp, err := os.MkdirTemp("", "starhost-example-")
	if err != nil {
		log.Fatal(err)
	}
	opts.Home = filepath.Join(tmp, "home")
	opts.Workspace = filepath.Join(tmp, "workspace")
	opts.Dev = []string{writeExamplePlugin(tmp, "plugin", files)}
	// Positions name the plugin directory by its base name, so notes do not
	// show temporary paths.
	opts.Display = filepath.Base
	h, err := starhost.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		log.Fatal(err)
	}
	return h, func() {
		if err := h.Close(context.Background()); err != nil {
			log.Fatal(err)
		}
		os.RemoveAll(tmp)
	}
}

// Embedding: write a plugin, start a host over it with Dev (eligible without
// a trust grant), and list what was discovered. Notes — here the plugin's
// print and a left-out tool — arrive on the Notes callback.
func ExampleHost() {
	tmp, err := os.MkdirTemp("", "starhost-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := writeExamplePlugin(tmp, "hello", map[string]string{
		"plugin.toml": `id = "acme.hello"
version = "0.1.0"
display_name = "Acme Hello"
`,
		"plugin.star": `print("loading")

contribute(tools = [
    tool(name = "greet", catalogs = "work", run = lambda ctx, args: "Hello!"),
    tool(name = "bash", catalogs = "work", run = lambda ctx, args: ""),
])
`,
	})

	h, err := starhost.New(starhost.Options{
		Home:         filepath.Join(tmp, "home"),
		Workspace:    filepath.Join(tmp, "workspace"),
		Dev:          []string{dir},
		BuiltinTools: []string{"bash"},
		Display:      filepath.Base,
		Notes:        func(n starhost.Note) { fmt.Println("note:", n) },
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		log.Fatal(err)
	}
	defer h.Close(ctx)

	for _, p := range h.Plugins() {
		fmt.Printf("%s %s %q: %s (%s), %d diagnostic(s)\n",
			p.ID, p.Version, p.DisplayName, p.State, p.Source, len(p.Diagnostics))
	}
	// Output:
	// note: hello/plugin.star:1:6: note: acme.hello: print: loading [Print]
	// note: hello/plugin.star:5:9: error: acme.hello: tool name "bash" is a built-in tool; the tool is left out [ToolNameReserved]
	// acme.hello 0.1.0 "Acme Hello": active (dev), 1 diagnostic(s)
}

// Invoking a tool: take a frozen snapshot of one catalog, list it in catalog
// order, and call a tool with JSON arguments. Arguments are validated against
// the tool's schema before any plugin code runs.
func ExampleToolSnapshot_Invoke() {
	h, cleanup := startExampleHost(starhost.Options{}, map[string]string{
		"plugin.toml": "id = \"acme.words\"\nversion = \"1.0.0\"\n",
		"plugin.star": `def count(ctx, args):
    text = args["text"].strip()
    if not text:
        return error("empty_text", "text is empty")
    return {"words": len(text.split())}

contribute(tools = [tool(
    name = "word_count",
    description = "Counts words.",
    parameters = {"type": "object", "properties": {"text": {"type": "string"}},
                  "required": ["text"], "additionalProperties": False},
    catalogs = "plan_and_work",
    run = count,
)])
`,
	})
	defer cleanup()
	ctx := context.Background()

	s, _ := h.NewSession(context.Background(), starhost.SessionOptions{}) // one agent session
	snap := s.Thread("").Tools(ctx, starhost.Work)
	for _, t := range snap.List() {
		fmt.Printf("%s (%s) from %q\n", t.Name, t.Catalogs, t.Plugin)
	}

	show := func(res starhost.ToolResult) {
		switch {
		case !res.OK():
			fmt.Printf("error %s: %s\n", res.Error.Code, res.Error.Message)
		case res.Data != nil:
			fmt.Println("data:", string(res.Data))
		default:
			fmt.Println("text:", res.Text)
		}
	}
	show(snap.Invoke(ctx, "word_count", json.RawMessage(`{"text": "ship it now"}`)))
	show(snap.Invoke(ctx, "word_count", json.RawMessage(`{"text": "   "}`)))
	show(snap.Invoke(ctx, "word_count", json.RawMessage(`{"text": 3}`)))
	show(snap.Invoke(ctx, "nope", nil))

	// After Close every plugin generation is revoked: the old snapshot's
	// proxies no longer resolve.
	if err := h.Close(ctx); err != nil {
		log.Fatal(err)
	}
	late := snap.Invoke(ctx, "word_count", json.RawMessage(`{"text": "late"}`))
	show(late)
	// res.Err() speaks the one error vocabulary: errors.Is matches the code.
	fmt.Println("never started:", errors.Is(late.Err(), starhost.ErrToolUnavailable))
	// Output:
	// word_count (plan_and_work) from "acme.words"
	// skill (plan_and_work) from ""
	// data: {"words":3}
	// error empty_text: text is empty
	// error invalid_arguments: /text: got number, want string
	// error unknown_tool: no tool named "nope" in this snapshot
	// error tool_unavailable: tool "word_count" is not available; its plugin stopped or no longer offers it
	// never started: true
}

// Binding a template: host-owned names come from the facts set with
// SetFacts; plugin placeholders are resolved on every bind and inserted
// verbatim; unknown tokens stay as they are.
func ExampleSession_Bind() {
	h, cleanup := startExampleHost(starhost.Options{
		HostPlaceholders: []string{"mode", "model"},
	}, map[string]string{
		"plugin.toml": "id = \"acme.tickets\"\nversion = \"1.0.0\"\n",
		"plugin.star": `def ticket(ctx):
    return "T-42 (%s, %s)" % (ctx.site, ctx.mode)

def raw(ctx):
    return "{{model}}"  # inserted verbatim, never expanded again

contribute(placeholders = [
    placeholder(name = "ticket", resolve = ticket),
    placeholder(name = "raw", resolve = raw),
])
`,
	})
	defer cleanup()
	ctx := context.Background()

	s, _ := h.NewSession(context.Background(), starhost.SessionOptions{}) // one agent session
	s.SetFacts(starhost.Facts{Mode: "plan", Model: "small-1"})
	fmt.Println(s.Bind(ctx, "Model {{model}}, ticket {{TICKET}}, raw {{raw}}, other {{unknown}}", starhost.SitePrompt))

	s.SetFacts(starhost.Facts{Mode: "work", Model: "large-2"})
	fmt.Println(s.Bind(ctx, "Model {{model}}, ticket {{ticket}}", starhost.SiteReview))
	// Output:
	// Model small-1, ticket T-42 (prompt, plan), raw {{model}}, other {{unknown}}
	// Model large-2, ticket T-42 (review, work)
}

// Expanding a slash command: built-in verbs belong to the embedder, a
// workspace markdown command shadows plugin commands, and a plugin command
// returns this turn's input (or None to pass). ctx.out.write becomes a note.
func ExampleSession_Expand() {
	var notes []string
	h, cleanup := startExampleHost(starhost.Options{
		BuiltinCommands: []string{"help"},
		Notes:           func(n starhost.Note) { notes = append(notes, n.String()) },
	}, map[string]string{
		"plugin.toml": "id = \"acme.triage\"\nversion = \"1.0.0\"\n",
		"plugin.star": `def triage(ctx, inv):
    if not inv.args:
        return None  # pass: nothing becomes this turn's input
    ctx.out.write("triaging " + inv.args)
    return "Summarize the review queue " + inv.args

contribute(commands = [command(name = "triage", aliases = ["tri"], run = triage)])
`,
	})
	defer cleanup()
	ctx := context.Background()

	s, _ := h.NewSession(context.Background(), starhost.SessionOptions{}) // one agent session
	text, ok, err := s.Expand(ctx, "/tri", "inbox")
	fmt.Printf("%q %v %v\n", text, ok, err)

	_, ok, err = s.Expand(ctx, "/triage", "")
	fmt.Println("empty args:", ok, err)

	_, _, err = s.Expand(ctx, "/help", "")
	fmt.Println("help:", errors.Is(err, starhost.ErrBuiltinCommand))

	_, _, err = s.Expand(ctx, "/deploy", "")
	fmt.Println("deploy:", errors.Is(err, starhost.ErrUnknownCommand))

	fmt.Println(notes)
	// Output:
	// "Summarize the review queue inbox" true <nil>
	// empty args: false <nil>
	// help: true
	// deploy: true
	// [plugin/plugin.star:4:18: note: acme.triage: triaging inbox [CommandOutput]]
}
