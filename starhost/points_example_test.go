package starhost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
)

const exampleManifest = "id = \"acme.guard\"\nversion = \"1.0.0\"\ndisplay_name = \"Acme Guard\"\n"

// Assembling the system prompt of a thread: the host's default sections,
// with a plugin's replacement standing where the default it shadows stood.
// The result is captured per thread until an invalidation (DC12).
func ExampleThread_AssemblePrompt() {
	h, cleanup := startExampleHost(starhost.Options{
		HostPlaceholders: []string{"mode"},
		Points: starhost.PointDefaults{Sections: map[string]string{
			contrib.TargetIdentity:      "You are a coding agent.",
			contrib.TargetResponseStyle: "Explain your reasoning.",
			contrib.TargetEnvironment:   "Mode: {{mode}}.",
		}},
	}, map[string]string{
		"plugin.toml": exampleManifest,
		"plugin.star": `
contribute(prompt_sections = [
    prompt_section(replace = TARGET_RESPONSE_STYLE, run = lambda ctx, req: "Answer tersely."),
    prompt_section(order = ORDER_LAST, run = lambda ctx, req: "Thread " + req["thread"] + "."),
])`,
	})
	defer cleanup()
	s, _ := h.NewSession(context.Background(), starhost.SessionOptions{}) // one agent session
	s.SetFacts(starhost.Facts{Mode: "work"})

	p := s.Thread("thread-1").AssemblePrompt(context.Background())
	for _, s := range p.Sections {
		origin := "host"
		if s.Origin != "" {
			origin = s.Origin
		}
		fmt.Printf("%-15s %-10s %s\n", s.Target+":", origin, s.Text)
	}
	// Output:
	// identity:       host       You are a coding agent.
	// response_style: acme.guard Answer tersely.
	// environment:    host       Mode: work.
	// :               acme.guard Thread thread-1.
}

// Dispatching a tool call: classification, policy, approval hooks and the
// approval stage, the tool_call hooks (a rewritten call is approved again),
// the tool itself, the tool_result hooks, the recorder and the normalizer.
func ExampleThread_Dispatch() {
	h, cleanup := startExampleHost(starhost.Options{
		BuiltinTools:    []string{"bash"},
		Classifications: map[string]starhost.Classification{"bash": {Risk: "high", Permission: "ask"}},
		Points: starhost.PointDefaults{
			Approve: func(_ context.Context, req starhost.ApprovalRequest) starhost.Approval {
				fmt.Printf("approve %s %s (risk %s)\n", req.Call.Name, req.Call.Arguments, req.Risk)
				return starhost.Approval{Approved: true}
			},
			Record: func(_ context.Context, thread string, call starhost.ToolCall, res starhost.ToolResult) {
				fmt.Printf("record %s in %s: %s\n", call.ID, thread, res.Text)
			},
		},
	}, map[string]string{
		"plugin.toml": exampleManifest,
		"plugin.star": `
def guard(ctx, call):
    if "rm -rf" in call["arguments"]["command"]:
        return {"arguments": {"command": "echo refused"}}
    return None

contribute(hooks = [hook("tool_call", guard)])`,
	})
	defer cleanup()

	// The host runs its own bash; it leaves plugin and external tools to
	// Dispatch, which runs them from the thread's snapshot.
	bash := func(_ context.Context, call starhost.ToolCall) (starhost.ToolResult, bool) {
		if call.Name != "bash" {
			return starhost.ToolResult{}, false
		}
		var args struct{ Command string }
		json.Unmarshal(call.Arguments, &args)
		return starhost.ToolResult{Text: "ran: " + args.Command}, true
	}
	s, _ := h.NewSession(context.Background(), starhost.SessionOptions{}) // one agent session
	res := s.Thread("thread-1").Dispatch(context.Background(),
		starhost.ToolCall{ID: "call-1", Name: "bash", Arguments: json.RawMessage(`{"command": "rm -rf /"}`)}, bash)
	fmt.Println(res.Approved, res.Call.ID, res.Result.Text)
	// Output:
	// approve bash {"command": "rm -rf /"} (risk high)
	// approve bash {"command":"echo refused"} (risk high)
	// record call-1 in thread-1: ran: echo refused
	// true call-1 ran: echo refused
}

// Running one hook stage: hooks in plugin load order, each seeing the
// previous replacement; one that exceeds its event's powers is skipped
// with a note.
func ExampleSession_RunHook() {
	h, cleanup := startExampleHost(starhost.Options{}, map[string]string{
		"plugin.toml": exampleManifest,
		"plugin.star": `
contribute(hooks = [
    hook("approval", lambda ctx, req: {"risk": "high"}),
    hook("approval", lambda ctx, req: {"risk": "low", "prompt": False}),
])`,
	})
	defer cleanup()

	s, _ := h.NewSession(context.Background(), starhost.SessionOptions{}) // one agent session
	res, err := s.RunHook(context.Background(), "approval",
		map[string]any{"id": "call-1", "name": "write", "risk": "medium", "prompt": true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Payload["risk"], res.Payload["prompt"])
	for _, n := range res.Notes {
		fmt.Println(n.Code, n.Message)
	}
	// Output:
	// high true
	// HookSkipped hook approval: prompt: a hook may require another prompt, never waive one; the hook was skipped
}

// A turn observer registers a thread-scoped entry with ctx.contributions
// (DC11): it applies to that thread only, and goes when the thread ends.
func ExampleThread_TurnStarted() {
	h, cleanup := startExampleHost(starhost.Options{}, map[string]string{
		"plugin.toml": exampleManifest,
		"plugin.star": `
def on_turn(ctx, ev):
    if ev["event"] == "started" and ev["turn"] == "turn-1":
        ctx.contributions.add(chat_context(run = lambda ctx, req: "Remember the style guide."))
    return None

contribute(turn_observers = [turn_observer(run = on_turn)])`,
	})
	defer cleanup()
	ctx := context.Background()

	s, _ := h.NewSession(context.Background(), starhost.SessionOptions{}) // one agent session
	s.Thread("thread-1").TurnStarted(ctx, "turn-1", "fix the bug")
	fmt.Printf("thread-1: %q\n", s.Thread("thread-1").ChatContext(ctx, "turn-2"))
	fmt.Printf("thread-2: %q\n", s.Thread("thread-2").ChatContext(ctx, "turn-1"))
	s.Thread("thread-1").End(ctx)
	fmt.Printf("thread-1 after its end: %q\n", s.Thread("thread-1").ChatContext(ctx, "turn-3"))
	// Output:
	// thread-1: ["Remember the style guide."]
	// thread-2: []
	// thread-1 after its end: []
}

// Rebuilding captured state: Subscribe reports each change of what the
// host offers: here the points' entries, with the thread it concerns and
// the host's generation.
func ExampleHost_Subscribe() {
	h, cleanup := startExampleHost(starhost.Options{}, map[string]string{
		"plugin.toml": exampleManifest,
		"plugin.star": `
def on_thread(ctx, ev):
    if ev["event"] == "started":
        ctx.contributions.add(tool_restriction(run = lambda ctx, req: ["bash"]))
    return None

contribute(thread_observers = [thread_observer(run = on_thread)])`,
	})
	defer cleanup()
	start := h.Generation()
	cancel := h.Subscribe(func(c starhost.Change) {
		fmt.Printf("rebuild %v of thread %q at generation +%d\n", c.Points, c.Thread, c.Generation-start)
	})
	defer cancel()

	s, _ := h.NewSession(context.Background(), starhost.SessionOptions{}) // one agent session
	s.StartThread(context.Background(), "thread-1")
	s.Thread("thread-1").End(context.Background())
	// Output:
	// rebuild [tool_restriction] of thread "thread-1" at generation +1
	// rebuild [tool_restriction] of thread "thread-1" at generation +2
}

// Resolving a point: the resolved list with each entry's origin, order and
// the default it replaces.
func ExampleThread_Resolve() {
	h, cleanup := startExampleHost(starhost.Options{}, map[string]string{
		"plugin.toml": exampleManifest,
		"plugin.star": `
contribute(dispatch_approvals = [
    dispatch_approval(run = lambda ctx, req: None),
    dispatch_approval(order = ORDER_LAST, run = lambda ctx, req: None),
])`,
	})
	defer cleanup()

	s, _ := h.NewSession(context.Background(), starhost.SessionOptions{}) // one agent session
	for _, e := range s.Thread("thread-1").Resolve(starhost.PointDispatchApproval).Entries {
		origin := e.Origin
		if origin == "" {
			origin = "host"
		}
		fmt.Println(strings.TrimSpace(fmt.Sprint(e.Order, " ", origin, " ", e.Target)))
	}
	// Output:
	// 0 acme.guard
	// 1000 host approval
	// 1000000 acme.guard
}
