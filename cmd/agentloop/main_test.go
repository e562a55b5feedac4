package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost/models/modelfake"
)

const loopPlugin = `
def summarize(ctx, args):
    n = ctx.store.get("n", 0) + 1
    ctx.store["n"] = n
    ctx.status.set("summaries", "%%d summaries" %% n)
    return "%s " + args["text"]

def guard(ctx, call):
    # a tool_call hook: the model's arguments are trimmed before the call
    return {"arguments": {"text": call["arguments"]["text"].strip()}}

contribute(
    tools = [tool(name = "summarize", description = "Summarize text.", catalogs = "work", run = summarize,
        parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})],
    commands = [command(name = "triage", run = lambda ctx, inv: "Summarize the queue: " + inv.args)],
    placeholders = [placeholder(name = "project", resolve = lambda ctx: "crystal-star")],
    status_fields = [status_field(name = "summaries", description = "Summaries this session")],
    hooks = [hook("tool_call", guard)],
)
`

// summarize is the model's scripted call of the summarize tool with text
// padded (the plugin's tool_call hook trims it).
func summarize(id, text string) modelfake.Reply {
	args, _ := json.Marshal(map[string]string{"text": "  " + text + "  "})
	return modelfake.Reply{ToolCalls: []modelfake.ToolCall{{ID: id, Name: "summarize", Arguments: string(args)}}}
}

// chatRequest is what the loop sent the model in one call.
type chatRequest struct {
	Messages []message
	Tools    []struct{ Function struct{ Name string } }
}

// transcript is the loop's output, safe to poll while it runs.
type transcript struct {
	mu sync.Mutex
	b  strings.Builder
}

func (t *transcript) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.Write(p)
}

func (t *transcript) waitFor(tb testing.TB, want string) {
	tb.Helper()
	t.waitForN(tb, want, 1)
}

// waitForN waits until want occurs n times in the transcript.
func (t *transcript) waitForN(tb testing.TB, want string, n int) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		t.mu.Lock()
		s := t.b.String()
		t.mu.Unlock()
		if strings.Count(s, want) >= n {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no %q in the transcript:\n%s", want, s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// loop is the example host running against a fake model in a test, with
// loopPlugin at "v1:" and a status line showing the summaries.
type loop struct {
	plugin string
	srv    *modelfake.Server
	feed   *io.PipeWriter // the user's input
	out    *transcript
	done   chan error
}

// startLoop starts the loop; the model answers with replies, in order.
func startLoop(t *testing.T, replies ...modelfake.Reply) *loop {
	t.Helper()
	home := t.TempDir()
	t.Setenv("CRYSTAL_HOME", home)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("status_line = [\"summaries\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &loop{plugin: filepath.Join(t.TempDir(), "loop"), srv: modelfake.Start(), out: &transcript{}, done: make(chan error, 1)}
	t.Cleanup(l.srv.Close)
	testkit.Plugin{ID: "acme.loop", Source: fmt.Sprintf(loopPlugin, "v1:")}.Write(t, l.plugin)
	l.srv.ScriptReplies(replies...)
	in, feed := io.Pipe()
	l.feed = feed
	go func() { l.done <- run(context.Background(), []string{l.srv.Endpoint("openai"), l.plugin}, in, l.out) }()
	return l
}

// end closes the user's input; the loop must then return nil.
func (l *loop) end(t *testing.T) {
	t.Helper()
	l.feed.Close()
	if err := <-l.done; err != nil {
		t.Fatal(err)
	}
}

// TestAgentLoop runs the example host against a fake model: tools offered,
// a tool call dispatched through a tool_call hook, a command expanded, a
// placeholder bound in the system prompt, the status line printed, and the
// plugin reloaded mid-loop.
func TestAgentLoop(t *testing.T) {
	// The model calls summarize once per user message with that message's
	// text, then answers; the requests show what the loop sent back.
	l := startLoop(t, summarize("call-1", "Summarize the queue: open reviews"), modelfake.Reply{Text: "done: v1"},
		summarize("call-2", "what changed?"), modelfake.Reply{Text: "done: v2"})
	feed, out, plugin, srv := l.feed, l.out, l.plugin, l.srv

	fmt.Fprintln(feed, "/triage open reviews")
	out.waitFor(t, "tool summarize: v1: Summarize the queue: open reviews\n")
	out.waitFor(t, "assistant: done: v1\n")
	out.waitFor(t, "status: 1 summaries\n")

	os.WriteFile(filepath.Join(plugin, "plugin.star"), []byte(fmt.Sprintf(loopPlugin, "v2:")), 0o644)
	out.waitFor(t, "reloaded acme.loop g2\n")
	fmt.Fprintln(feed, "what changed?")
	out.waitFor(t, "tool summarize: v2: what changed?\n")
	out.waitForN(t, "status: 1 summaries\n", 2) // a new generation counts afresh
	l.end(t)
	var reqs []chatRequest
	for _, r := range srv.Requests() {
		var req chatRequest
		if err := json.Unmarshal(r.Body, &req); err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, req)
	}
	if len(reqs) != 4 {
		t.Fatalf("%d model calls; want 4", len(reqs))
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "You are a coding agent for crystal-star.") {
		t.Errorf("system prompt %q: {{project}} not bound", reqs[0].Messages[0].Content)
	}
	if len(reqs[0].Tools) == 0 || reqs[0].Tools[0].Function.Name != "summarize" {
		t.Errorf("tools offered: %+v", reqs[0].Tools)
	}
	// Each call ends with the user's message, then with the tool's result
	// answering the model's call.
	for i, want := range []message{{Role: "user", Content: "Summarize the queue: open reviews"},
		{Role: "tool", ToolCallID: "call-1", Content: "v1: Summarize the queue: open reviews"},
		{Role: "user", Content: "what changed?"},
		{Role: "tool", ToolCallID: "call-2", Content: "v2: what changed?"}} {
		if last := reqs[i].Messages[len(reqs[i].Messages)-1]; fmt.Sprint(last) != fmt.Sprint(want) {
			t.Errorf("call %d ends with %+v; want %+v", i+1, last, want)
		}
	}
}

// TestH25_6_TwoSessionsOneHost: the loop serves a work and a plan session
// from one host. A "plan> " line goes to the plan session: the model is
// offered the plan catalog (summarize is work-only), its history is its
// own, and its status line does not show the work session's summaries.
func TestH25_6_TwoSessionsOneHost(t *testing.T) {
	l := startLoop(t, summarize("call-1", "work item"), modelfake.Reply{Text: "worked"}, modelfake.Reply{Text: "planned"})
	feed, out := l.feed, l.out
	fmt.Fprintln(feed, "work item")
	out.waitFor(t, "status: 1 summaries\n")
	fmt.Fprintln(feed, "plan> what next?")
	out.waitFor(t, "plan assistant: planned\n")
	out.waitFor(t, "plan status: \n")
	l.end(t)
	reqs := l.srv.Requests()
	var plan chatRequest
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &plan); err != nil {
		t.Fatal(err)
	}
	for _, tool := range plan.Tools {
		if tool.Function.Name == "summarize" {
			t.Errorf("the plan session was offered the work-only tool")
		}
	}
	if len(plan.Messages) != 2 || plan.Messages[1].Content != "what next?" {
		t.Errorf("the plan session's request %+v; want its own history: system and its one message", plan.Messages)
	}
}
