package mcpserve_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

const askPlugin = `
def greet(ctx, args):
    answer = ctx.ask("Who are you?", {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer", "default": 30}},
        "required": ["name"],
    })
    if answer == None:
        return "nobody answered"
    return "hello %s (%d)" % (answer["name"], answer["age"])

PNG = b"\x89PNG\x0d\x0a\x1a\x0a"

def pic(ctx, inv):
    return [image(PNG, "image/png"), "Please analyze the image above."]

def doc(ctx, inv):
    return [resource(inv.args, text = "the body", mime = "text/plain"), "Please read it."]

contribute(
    tools = [tool(name = "greet", catalogs = "work", run = greet)],
    commands = [
        command(name = "pic", run = pic),
        command(name = "doc", argument_hint = "<uri>", run = doc),
    ],
)
`

// elicitSession serves askPlugin with mcpserve.Elicitation as the host's
// answerer to a client whose elicitation handler is handler (nil: a client
// without the capability); opts adds limits.
func elicitSession(t *testing.T, opts starhost.Options, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) (*mcp.ClientSession, *notes) {
	t.Helper()
	dir := t.TempDir()
	plugin := filepath.Join(dir, "dev", "a")
	testkit.WriteFile(t, filepath.Join(plugin, "plugin.toml"), "id = \"acme.ask\"\nversion = \"1.0.0\"\n")
	testkit.WriteFile(t, filepath.Join(plugin, "plugin.star"), askPlugin)
	n := &notes{}
	opts.Home, opts.Workspace, opts.Dev = filepath.Join(dir, "home"), dir, []string{plugin}
	opts.Ask, opts.Notes, opts.Isolation = mcpserve.Elicitation(), n.add, os.Getenv("CRYSTAL_ISOLATION")
	h, ctx := watchedHost(t, opts)
	srv := mcpserve.New(h, mcpserve.Options{})
	t.Cleanup(srv.Close)
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"},
		&mcp.ClientOptions{ElicitationHandler: handler}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: samplingProtocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, n
}

type notes struct {
	mu   sync.Mutex
	list []starhost.Note
}

func (n *notes) add(x starhost.Note) { n.mu.Lock(); n.list = append(n.list, x); n.mu.Unlock() }

func (n *notes) has(code string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, x := range n.list {
		if string(x.Code) == code {
			return true
		}
	}
	return false
}

// bothModes runs f in process and, with CRYSTAL_ISOLATION=process, with the
// plugin in a worker: there the question crosses the channel as a call
// within the tool's call and the host answers it with the MCP request's
// context.
func bothModes(t *testing.T, f func(t *testing.T)) {
	t.Run("in_process", f)
	t.Run("process", func(t *testing.T) {
		t.Setenv("CRYSTAL_ISOLATION", "process")
		f(t)
	})
}

// TestH29_4_AskIsElicitation: ctx.ask is elicitation/create to the client
// that called the tool: its message and schema go out as given, the values
// of an accepted answer (with the schema's defaults applied) come back.
func TestH29_4_AskIsElicitation(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		var got *mcp.ElicitParams
		cs, _ := elicitSession(t, starhost.Options{}, func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			got = r.Params
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		})
		if text, r := callText(t, cs, "greet", map[string]any{}); r.IsError || text != "hello Ada (30)" {
			t.Fatalf("greet = %q (isError %v), want the client's answer", text, r.IsError)
		}
		props, _ := got.RequestedSchema.(map[string]any)["properties"].(map[string]any)
		if got == nil || got.Message != "Who are you?" || props["name"] == nil || props["age"] == nil {
			t.Errorf("elicitation request = %+v", got)
		}
	})
}

// TestH29_4_AskDeclined: a declined question, and a client without the
// elicitation capability, give the callback None.
func TestH29_4_AskDeclined(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		cs, _ := elicitSession(t, starhost.Options{}, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		})
		if text, r := callText(t, cs, "greet", map[string]any{}); r.IsError || text != "nobody answered" {
			t.Errorf("greet, declined = %q (isError %v), want None", text, r.IsError)
		}
		cs, _ = elicitSession(t, starhost.Options{}, nil)
		if text, r := callText(t, cs, "greet", map[string]any{}); r.IsError || text != "nobody answered" {
			t.Errorf("greet, no elicitation capability = %q (isError %v), want None", text, r.IsError)
		}
	})
}

// TestH29_4_AskIsNotCallbackTime: the person's time counts against neither
// the step budget nor callback_timeout. The client answers only after
// three callback timeouts have passed; without the pause the run would be
// cancelled (in process) or its worker killed (process) with
// CallbackTimeout.
func TestH29_4_AskIsNotCallbackTime(t *testing.T) {
	const timeout = 300 * time.Millisecond
	bothModes(t, func(t *testing.T) {
		cs, n := elicitSession(t, starhost.Options{CallbackTimeout: timeout}, func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			select {
			case <-time.After(3 * timeout): // a person reading the question
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		})
		if text, r := callText(t, cs, "greet", map[string]any{}); r.IsError || text != "hello Ada (30)" {
			t.Fatalf("greet after a slow answer = %q (isError %v), want the answer", text, r.IsError)
		}
		if n.has("CallbackTimeout") {
			t.Errorf("the wait for the person counted against callback_timeout")
		}
	})
}

// TestH29_4_AskTimeout: a question nobody answers within ask_timeout gives
// the callback None, with an AskUnanswered note.
func TestH29_4_AskTimeout(t *testing.T) {
	cs, n := elicitSession(t, starhost.Options{AskTimeout: 100 * time.Millisecond}, func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		<-ctx.Done() // nobody at the keyboard; the server gives up
		return nil, ctx.Err()
	})
	if text, r := callText(t, cs, "greet", map[string]any{}); r.IsError || text != "nobody answered" {
		t.Fatalf("greet unanswered = %q (isError %v), want None", text, r.IsError)
	}
	if !n.has("AskUnanswered") {
		t.Errorf("no AskUnanswered note")
	}
}

// TestH29_4_PromptContentParts: a command that returns content parts is a
// prompt of one message per part: image, embedded resource, text.
func TestH29_4_PromptContentParts(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		cs, _ := elicitSession(t, starhost.Options{}, nil)
		res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "pic"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Messages) != 2 {
			t.Fatalf("pic: %d messages, want 2", len(res.Messages))
		}
		if img, ok := res.Messages[0].Content.(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || !strings.HasPrefix(string(img.Data), "\x89PNG") {
			t.Errorf("pic message 1 = %#v, want the image", res.Messages[0].Content)
		}
		if txt, ok := res.Messages[1].Content.(*mcp.TextContent); !ok || txt.Text != "Please analyze the image above." {
			t.Errorf("pic message 2 = %#v, want the text", res.Messages[1].Content)
		}
		res, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "doc", Arguments: map[string]string{"uri": "test://r"}})
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := res.Messages[0].Content.(*mcp.EmbeddedResource); !ok || r.Resource.URI != "test://r" || r.Resource.Text != "the body" {
			t.Errorf("doc message 1 = %#v, want the embedded resource", res.Messages[0].Content)
		}
	})
}
