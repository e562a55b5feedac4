package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
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

// fakeModel answers Chat Completions like a model that calls summarize once
// per user message with that message's text, then answers with the tool's
// result. It records the system prompts and tool names it was offered.
type fakeModel struct {
	mu      sync.Mutex
	systems []string
	tools   []string
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []message
		Tools    []struct{ Function struct{ Name string } }
	}
	json.NewDecoder(r.Body).Decode(&req)
	f.mu.Lock()
	f.systems = append(f.systems, req.Messages[0].Content)
	for _, t := range req.Tools {
		f.tools = append(f.tools, t.Function.Name)
	}
	f.mu.Unlock()
	last := req.Messages[len(req.Messages)-1]
	reply := map[string]any{"role": "assistant", "content": "done: " + last.Content}
	if last.Role == "user" {
		args, _ := json.Marshal(map[string]string{"text": "  " + last.Content + "  "})
		reply = map[string]any{"role": "assistant", "content": "", "tool_calls": []map[string]any{{
			"id": fmt.Sprintf("call-%d", len(req.Messages)), "type": "function",
			"function": map[string]any{"name": "summarize", "arguments": string(args)}}}}
	}
	json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"message": reply}}})
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

// TestAgentLoop runs the example host against a fake model: tools offered,
// a tool call dispatched through a tool_call hook, a command expanded, a
// placeholder bound in the system prompt, the status line printed, and the
// plugin reloaded mid-loop.
func TestAgentLoop(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CRYSTAL_HOME", home)
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("status_line = [\"summaries\"]\n"), 0o644)
	plugin := filepath.Join(t.TempDir(), "loop")
	testkit.Plugin{ID: "acme.loop", Source: fmt.Sprintf(loopPlugin, "v1:")}.Write(t, plugin)
	model := &fakeModel{}
	srv := httptest.NewServer(model)
	defer srv.Close()

	in, feed := io.Pipe()
	out := &transcript{}
	done := make(chan error, 1)
	go func() { done <- run(context.Background(), []string{srv.URL, plugin}, in, out) }()

	fmt.Fprintln(feed, "/triage open reviews")
	out.waitFor(t, "tool summarize: v1: Summarize the queue: open reviews\n")
	out.waitFor(t, "assistant: done: v1: Summarize the queue: open reviews\n")
	out.waitFor(t, "status: 1 summaries\n")

	os.WriteFile(filepath.Join(plugin, "plugin.star"), []byte(fmt.Sprintf(loopPlugin, "v2:")), 0o644)
	out.waitFor(t, "reloaded acme.loop g2\n")
	fmt.Fprintln(feed, "what changed?")
	out.waitFor(t, "tool summarize: v2: what changed?\n")
	out.waitForN(t, "status: 1 summaries\n", 2) // a new generation counts afresh
	feed.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	model.mu.Lock()
	defer model.mu.Unlock()
	if !strings.Contains(model.systems[0], "You are a coding agent for crystal-star.") {
		t.Errorf("system prompt %q: {{project}} not bound", model.systems[0])
	}
	if len(model.tools) == 0 || model.tools[0] != "summarize" {
		t.Errorf("tools offered: %v", model.tools)
	}
}
