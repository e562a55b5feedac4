package mcpserve_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

const featurePlugin = `
def triage(ctx, inv):
    return "Summarize the queue: " + inv.args

def pair(ctx, inv):
    return "pair of " + inv.args

def broken(ctx, inv):
    return {}["missing"]

def chatty(ctx, args):
    print("hello from chatty")
    return "done"

NOTES = "first notes"

def publish(ctx, req):
    if req["op"] == "list":
        return [
            {"uri": "mem://notes", "name": "notes", "description": "The notes", "mime_type": "text/plain"},
            {"uri": "mem://pixel", "name": "pixel", "mime_type": "image/png"},
            {"uri_template": "mem://item/{id}", "name": "item"},
            {"uri": "no scheme"},
        ]
    if req["uri"] == "mem://notes":
        return {"text": NOTES, "mime_type": "text/plain"}
    if req["uri"] == "mem://pixel":
        return {"blob": "AAEC", "mime_type": "image/png"}
    if req["uri"].startswith("mem://item/"):
        return {"text": "item " + req["uri"][len("mem://item/"):]}
    return None

def slow(ctx, args):
    ctx.progress(1, 3, "first")
    ctx.progress(2, 3)
    ctx.progress(3)
    return "finished"

contribute(
    tools = [
        tool(name = "chatty", description = "prints", catalogs = "work", run = chatty),
        tool(name = "slow", description = "reports progress", catalogs = "work", run = slow),
        tool(name = "count", description = "counts", catalogs = "work", run = lambda ctx, args: {"n": len(args.get("items", []))},
             output_schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
        tool(name = "miscount", description = "breaks its schema", catalogs = "work", run = lambda ctx, args: {"n": "many"},
             output_schema = {"type": "object", "properties": {"n": {"type": "integer"}}}),
%s    ],
    commands = [
        command(name = "triage", aliases = ["tri"], description = "Triage the queue", argument_hint = "QUEUE", run = triage),
        command(name = "pair", description = "Two words", argument_hint = "<first> [second]", run = pair),
        command(name = "broken", description = "fails", run = broken),
%s    ],
    placeholders = [placeholder(name = "model_name", resolve = lambda ctx: "m")],
    resource_publishers = [resource_publisher(run = publish)],
)
`

// fixture is a host with one dev plugin served over an in-memory
// transport, counting what the client was sent.
type fixture struct {
	cs                           *mcp.ClientSession
	srv                          *mcpserve.Server
	dir, star                    string
	events                       chan starhost.Event
	toolsChanged, promptsChanged chan struct{}
	updated                      chan string
	logs                         chan *mcp.LoggingMessageParams
	progress                     chan *mcp.ProgressNotificationParams
	nTools, nPrompts             atomic.Int32
}

func featureSource(tools, commands string) string {
	return strings.Replace(strings.Replace(featurePlugin, "%s", tools, 1), "%s", commands, 1)
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir(), events: make(chan starhost.Event, 64), toolsChanged: make(chan struct{}, 16),
		promptsChanged: make(chan struct{}, 16), updated: make(chan string, 16),
		logs: make(chan *mcp.LoggingMessageParams, 16), progress: make(chan *mcp.ProgressNotificationParams, 16)}
	plugin := filepath.Join(f.dir, "dev", "t")
	testkit.WriteFile(t, filepath.Join(plugin, "plugin.toml"), "id = \"acme.t\"\nversion = \"1.0.0\"\n")
	f.star = filepath.Join(plugin, "plugin.star")
	testkit.WriteFile(t, f.star, featureSource("", ""))
	testkit.WriteFile(t, filepath.Join(f.dir, ".crystal", "commands", "review.md"), "---\ndescription: Review a file\n---\nReview $ARGUMENTS carefully.\n")
	testkit.WriteFile(t, filepath.Join(f.dir, ".crystal", "skills", "demo", "SKILL.md"), "---\nname: demo\ndescription: A demo skill\n---\nStep one.\n")

	var served atomic.Pointer[mcpserve.Server]
	h, ctx := watchedHost(t, starhost.Options{Home: filepath.Join(f.dir, "home"), Workspace: f.dir, Dev: []string{plugin},
		BuiltinCommands: []string{"help"},
		Events: func(e starhost.Event) {
			select {
			case f.events <- e:
			default:
			}
		},
		Notes: func(n starhost.Note) {
			if s := served.Load(); s != nil {
				s.Note(n)
			}
		}})
	f.srv = mcpserve.New(h, mcpserve.Options{})
	t.Cleanup(f.srv.Close)
	served.Store(f.srv)
	st, ct := mcp.NewInMemoryTransports()
	go f.srv.Run(ctx, st)
	signal := func(c chan struct{}, n *atomic.Int32) {
		n.Add(1)
		select {
		case c <- struct{}{}:
		default:
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler:   func(context.Context, *mcp.ToolListChangedRequest) { signal(f.toolsChanged, &f.nTools) },
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { signal(f.promptsChanged, &f.nPrompts) },
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			f.updated <- r.Params.URI
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { f.logs <- r.Params },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			f.progress <- r.Params
		},
	})
	var err error
	f.cs, err = client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { f.cs.Close() })
	return f
}

// wait receives from c or fails after 10 seconds (a hang guard, not a
// timing assertion).
func wait[T any](t *testing.T, c chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10s", what)
	}
	var zero T
	return zero
}

// waitEvent waits for a lifecycle event of kind.
func (f *fixture) waitEvent(t *testing.T, kind starhost.EventKind) {
	t.Helper()
	for {
		if e := wait(t, f.events, string(kind)+" event"); e.Kind == kind {
			return
		}
	}
}

func promptText(t *testing.T, res *mcp.GetPromptResult) string {
	t.Helper()
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("prompt messages = %+v, want one user message", res.Messages)
	}
	text, ok := res.Messages[0].Content.(*mcp.TextContent)
	if !ok {
		t.Fatalf("prompt content is %T, want text", res.Messages[0].Content)
	}
	return text.Text
}

func TestMCPPromptsFromCommands(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	list, err := f.cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Prompt{}
	for _, p := range list.Prompts {
		byName[p.Name] = p
	}
	for _, name := range []string{"review", "triage", "tri", "pair", "broken"} {
		if byName[name] == nil {
			t.Errorf("prompts/list lacks %q; got %v", name, list.Prompts)
		}
	}
	if byName["help"] != nil {
		t.Errorf("prompts/list serves the built-in verb help")
	}
	if p := byName["triage"]; p != nil && (p.Description != "Triage the queue" || len(p.Arguments) != 1 || p.Arguments[0].Name != "args" ||
		!strings.Contains(p.Arguments[0].Description, "QUEUE")) {
		t.Errorf("triage prompt = %+v %+v", p, p.Arguments)
	}
	if p := byName["pair"]; p != nil && (len(p.Arguments) != 2 || p.Arguments[0].Name != "first" || !p.Arguments[0].Required ||
		p.Arguments[1].Name != "second" || p.Arguments[1].Required) {
		t.Errorf("pair arguments = %+v, want first (required), second", p.Arguments)
	}

	for _, c := range []struct {
		name string
		args map[string]string
		want string
	}{
		{"triage", map[string]string{"args": "inbox"}, "Summarize the queue: inbox"},
		{"tri", map[string]string{"args": "inbox"}, "Summarize the queue: inbox"},
		{"pair", map[string]string{"first": "a", "second": "b"}, "pair of a b"},
		{"review", map[string]string{"args": "main.go"}, "Review main.go carefully.\n"},
	} {
		res, err := f.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: c.name, Arguments: c.args})
		if err != nil {
			t.Errorf("prompts/get %s: %v", c.name, err)
			continue
		}
		if got := promptText(t, res); got != c.want {
			t.Errorf("prompts/get %s = %q, want %q", c.name, got, c.want)
		}
	}
	if _, err := f.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "broken"}); err == nil || !strings.Contains(err.Error(), "command_produced_nothing") {
		t.Errorf("prompts/get broken: err = %v, want command_produced_nothing", err)
	}
}

func TestMCPCompletionOffersPlaceholders(t *testing.T) {
	f := newFixture(t)
	res, err := f.cs.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "triage"},
		Argument: mcp.CompleteParamsArgument{Name: "args", Value: "use {{mod"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Completion.Values; len(got) != 1 || got[0] != "use {{model_name}}" {
		t.Errorf("completion of %q = %v, want [use {{model_name}}]", "use {{mod", got)
	}
}

func TestMCPSkillResources(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	list, err := f.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Resources) != 3 || list.Resources[2].URI != "skill://demo" || list.Resources[2].Description != "A demo skill" {
		t.Fatalf("resources/list = %+v, want mem://notes, mem://pixel, skill://demo", list.Resources)
	}
	read, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://demo"})
	if err != nil || len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "Step one.") {
		t.Fatalf("resources/read skill://demo = %+v, %v", read, err)
	}
	if _, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://nope"}); err == nil {
		t.Errorf("reading skill://nope succeeded")
	}
	if err := f.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "skill://demo"}); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(f.dir, ".crystal", "skills", "demo", "SKILL.md"), "---\nname: demo\ndescription: A demo skill\n---\nStep two.\n")
	testkit.WriteFile(t, f.star, featureSource("", "")+"\n# saved\n") // a reload
	if uri := wait(t, f.updated, "notifications/resources/updated"); uri != "skill://demo" {
		t.Errorf("updated %q, want skill://demo", uri)
	}
}

func TestMCPNotesAreLogMessages(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	callText(t, f.cs, "chatty", map[string]any{})
	msg := wait(t, f.logs, "notifications/message")
	data, _ := msg.Data.(map[string]any)
	if msg.Level != "debug" || msg.Logger != "acme.t" || data["message"] != "print: hello from chatty" || data["code"] != "Print" {
		t.Errorf("log message = %+v, want debug from acme.t with the print line", msg)
	}
	// At warning, the print is filtered and the failing command's warning
	// (CallbackFailed) is the next message.
	if err := f.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	callText(t, f.cs, "chatty", map[string]any{})
	f.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "broken"})
	if msg := wait(t, f.logs, "notifications/message"); msg.Level != "warning" || msg.Data.(map[string]any)["code"] != "CallbackFailed" {
		t.Errorf("after setLevel warning got %s message %v, want the CallbackFailed warning only", msg.Level, msg.Data)
	}
}

func TestMCPProgress(t *testing.T) {
	f := newFixture(t)
	params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}}
	params.SetProgressToken("tok-1")
	res, err := f.cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("slow: %v %+v", err, res)
	}
	want := []mcp.ProgressNotificationParams{{Progress: 1, Total: 3, Message: "first"}, {Progress: 2, Total: 3}, {Progress: 3}}
	for i, w := range want {
		p := wait(t, f.progress, "notifications/progress")
		if p.ProgressToken != "tok-1" || p.Progress != w.Progress || p.Total != w.Total || p.Message != w.Message {
			t.Errorf("progress %d = %+v, want %+v with token tok-1", i, p, w)
		}
	}
	// Without a token the same tool runs and reports nothing.
	if text, r := callText(t, f.cs, "slow", map[string]any{}); r.IsError || text != "finished" {
		t.Errorf("slow without a token = %q", text)
	}
}

// TestMCPListChangedOncePerChange: catalogs are mirrored into the SDK's
// registries, so a reload sends one list_changed per catalog that changed
// and none for a catalog that did not.
func TestMCPListChangedOncePerChange(t *testing.T) {
	f := newFixture(t)
	// A body-only change: nothing listed changes.
	testkit.WriteFile(t, f.star, strings.Replace(featureSource("", ""), `"done"`, `"done!"`, 1))
	f.waitEvent(t, "reloaded")
	// A new command: prompts change, tools do not.
	testkit.WriteFile(t, f.star, featureSource("", `        command(name = "extra", run = triage),
`))

	wait(t, f.promptsChanged, "prompts/list_changed")
	if n := f.nTools.Load(); n != 0 {
		t.Errorf("tools/list_changed sent %d times for reloads that changed no tool", n)
	}
	// A new tool: tools change once, prompts not again.
	testkit.WriteFile(t, f.star, featureSource(`        tool(name = "added", catalogs = "work", run = chatty),
`, `        command(name = "extra", run = triage),
`))

	wait(t, f.toolsChanged, "tools/list_changed")
	testkit.WriteFile(t, f.star, featureSource(`        tool(name = "added", catalogs = "work", run = chatty),
`, `        command(name = "extra", run = triage),
        command(name = "extra2", run = triage),
`))

	wait(t, f.promptsChanged, "prompts/list_changed")
	if n, m := f.nTools.Load(), f.nPrompts.Load(); n != 1 || m != 2 {
		t.Errorf("tools/list_changed %d times, prompts/list_changed %d times; want 1 and 2", n, m)
	}
}

// TestMCPPublishedResources: what a plugin's resource_publisher lists is
// served (resources, templates, text and binary contents), an entry without
// a scheme is left out, and a reload that changes contents tells the
// subscribers.
func TestMCPPublishedResources(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	list, err := f.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if uris := joined(list.Resources, func(r *mcp.Resource) string { return r.URI }); uris != "mem://notes mem://pixel skill://demo" {
		t.Errorf("resources/list = %v", uris)
	}
	tpls, err := f.cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if templates := joined(tpls.ResourceTemplates, func(r *mcp.ResourceTemplate) string { return r.URITemplate }); templates != "mem://item/{id} skill://{name}" {
		t.Errorf("resources/templates/list = %v", templates)
	}
	for uri, want := range map[string]string{"mem://notes": "first notes", "mem://item/42": "item 42"} {
		read, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != want {
			t.Errorf("read %s = %+v, %v; want %q", uri, read, err, want)
		}
	}
	read, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mem://pixel"})
	if err != nil || string(read.Contents[0].Blob) != "\x00\x01\x02" || read.Contents[0].MIMEType != "image/png" {
		t.Errorf("read mem://pixel = %+v, %v", read, err)
	}
	if err := f.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "mem://notes"}); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, f.star, strings.Replace(featureSource("", ""), "first notes", "second notes", 1))
	if uri := wait(t, f.updated, "notifications/resources/updated"); uri != "mem://notes" {
		t.Errorf("updated %q, want mem://notes", uri)
	}
}

// TestMCPOutputSchema: a tool's output_schema is advertised as its
// outputSchema, a valid result comes with structuredContent, and a result
// that breaks the schema is an isError invalid_output.
func TestMCPOutputSchema(t *testing.T) {
	f := newFixture(t)
	list, err := f.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	for _, tool := range list.Tools {
		if tool.Name == "count" {
			schema, _ = tool.OutputSchema.(map[string]any)
		}
	}
	if schema["type"] != "object" || schema["required"] == nil {
		t.Errorf("count's outputSchema = %v", schema)
	}
	if text, r := callText(t, f.cs, "count", map[string]any{"items": []any{1, 2}}); r.IsError || text != `{"n":2}` ||
		r.StructuredContent.(map[string]any)["n"] != float64(2) {
		t.Errorf("count = %q %+v", text, r.StructuredContent)
	}
	if text, r := callText(t, f.cs, "miscount", map[string]any{}); !r.IsError || !strings.HasPrefix(text, "invalid_output: ") {
		t.Errorf("miscount = %q (isError %v), want invalid_output", text, r.IsError)
	}
}

// wireLog receives what a LoggingTransport logs, one message a write.
type wireLog chan string

func (w wireLog) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// wireLists connects an SDK client on protocol version (empty: the SDK's
// latest), lists tools, prompts, resources and templates, and returns the
// messages the client read, as they were on the wire.
func wireLists(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	h, ctx := watchedHost(t, starhost.Options{Home: filepath.Join(dir, "home"), Workspace: dir})
	srv := mcpserve.New(h, mcpserve.Options{})
	t.Cleanup(srv.Close)
	st, ct := mcp.NewInMemoryTransports()
	go func() { _ = srv.Run(ctx, st) }()
	wire := make(wireLog, 64)
	cctx := t.Context()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(cctx, &mcp.LoggingTransport{Transport: ct, Writer: wire}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(cctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListPrompts(cctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListResources(cctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListResourceTemplates(cctx, nil); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for {
		select {
		case m := <-wire:
			out.WriteString(m)
		default:
			return out.String()
		}
	}
}

// TestMCPCacheFieldsOnlyFrom20260728: the cache hints ttlMs and cacheScope,
// which the SDK writes on every list result, are not in the schema before
// protocol 2026-07-28 and are left out there; on 2026-07-28 they stay.
func TestMCPCacheFieldsOnlyFrom20260728(t *testing.T) {
	lists := []string{`"tools":[`, `"prompts":[`, `"resources":[`, `"resourceTemplates":[`}
	for _, v := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		wire := wireLists(t, v)
		for _, list := range lists {
			line := ""
			for _, l := range strings.Split(wire, "\n") {
				if strings.HasPrefix(l, "read: ") && strings.Contains(l, list) {
					line = l
				}
			}
			hinted := strings.Contains(line, `"ttlMs":0,"cacheScope":"public"`)
			switch {
			case line == "":
				t.Errorf("%s: no %s result on the wire:\n%s", v, list, wire)
			case v < "2026-07-28" && (hinted || strings.Contains(line, "ttlMs") || strings.Contains(line, "cacheScope")):
				t.Errorf("%s: cache hints in %s", v, line)
			case v >= "2026-07-28" && !hinted:
				t.Errorf("%s: no cache hints in %s", v, line)
			}
		}
	}
}
