package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
)

// The CLI as an agent host of the contribution points: its default prompt
// sections and approver, and the dev-console verbs /prompt, /hook, /points,
// /turn and /dispatch, which run on one thread, "dev".

// cliPoints are the CLI's own entries of the points' named defaults.
var cliPoints = starhost.PointDefaults{
	Sections: map[string]string{
		contrib.TargetIdentity:      "You are a coding agent.",
		contrib.TargetToolUse:       "Use the tools to read and change files; ask before destructive commands.",
		contrib.TargetResponseStyle: "Answer in full sentences and explain your reasoning.",
		contrib.TargetEnvironment:   "Mode: {{mode}}; approval: {{approval_mode}}.",
	},
	// The CLI runs no model turns: the dev console's /dispatch approves
	// every call so the rest of the pipeline can be seen.
	Approve: func(context.Context, starhost.ApprovalRequest) starhost.Approval {
		return starhost.Approval{Approved: true, Reason: "the dev console approves every call"}
	},
}

// devThread is the thread of the dev console.
const devThread = "dev"

// t is the console's conversation of its session.
func (c *console) t() *starhost.Thread { return c.s.Thread(devThread) }

// devState is a console's thread: started once, turns counted.
type devState struct {
	once  sync.Once
	mu    sync.Mutex
	turns int
	calls int
}

var devStates sync.Map // *console → *devState

// thread starts the console's thread on first use and returns its state.
func (c *console) thread() *devState {
	v, _ := devStates.LoadOrStore(c, &devState{})
	s := v.(*devState)
	s.once.Do(func() { c.s.StartThread(c.e.ctx, devThread) })
	return s
}

func (c *console) prompt(string) {
	c.thread()
	p := c.t().AssemblePrompt(c.e.ctx)
	c.printf("prompt of thread %s: %d sections", devThread, len(p.Sections))
	for _, s := range p.Sections {
		c.printf("  %s %s: %s", sectionName(s), sectionOrigin(s), s.Text)
	}
	if p.Assembler != "" {
		c.printf("  assembled by %s (prompt_assembler takes over)", p.Assembler)
	}
	if p.Memory != "" {
		c.printf("  memory replaced by %s (takes over the system prompt)", p.Memory)
	}
	c.printf("text: %s", strings.ReplaceAll(p.Text, "\n", `\n`))
}

func sectionName(s starhost.PromptSection) string {
	switch {
	case s.Target != "":
		return s.Target
	case s.Point == starhost.PointThreadContext:
		return "thread_context"
	}
	return "+"
}

func sectionOrigin(s starhost.PromptSection) string {
	switch {
	case s.Origin == "":
		return "(host)"
	case s.Replaced:
		return "(" + s.Origin + ", replaces the host's)"
	case s.Scope == "thread":
		return "(" + s.Origin + ", thread " + devThread + ")"
	}
	return "(" + s.Origin + ")"
}

func (c *console) hook(rest string) {
	event, raw, _ := cutSpace(rest)
	if event == "" {
		c.printf("usage: /hook EVENT JSON; events: %s", strings.Join(starhost.HookEvents(), ", "))
		return
	}
	payload := map[string]any{}
	if raw != "" {
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&payload); err != nil {
			c.printf("/hook: the payload is not a JSON object: %v", err)
			return
		}
	}
	res, err := c.s.RunHook(c.e.ctx, event, payload)
	if err != nil {
		c.printf("/hook: %v", err)
		return
	}
	out, _ := json.Marshal(res.Payload)
	c.printf("hook %s: %s", event, out)
	for _, n := range res.Notes {
		c.printf("  skipped: %s", n.Message)
	}
}

func (c *console) points(string) {
	c.thread()
	for _, info := range c.t().Points() {
		p := info
		c.printf("%s [%s] %s; %s; %s", p.Name, p.Tiers, p.Eval, p.Combine, p.Failure)
		switch p.Name {
		case starhost.PointTools:
			c.printf("  %d tools (see /tools)", c.t().Tools(c.e.ctx, starhost.PlanAndWork).Len())
		case starhost.PointCommands:
			c.printf("  %d commands (see /help)", len(c.h.Commands()))
		}
		for _, e := range info.Entries {
			c.printf("  %d %s", e.Order, entryLabel(e))
		}
	}
	hooks := c.h.Hooks()
	c.printf("hooks: %d", len(hooks))
	for _, hk := range hooks {
		kind := "hook"
		if hk.Raw {
			kind = "raw_hook"
		}
		c.printf("  %s %s: %s", kind, hk.Event, hk.Plugin)
	}
}

func entryLabel(e starhost.PointEntry) string {
	origin := e.Origin
	switch {
	case origin == "" && e.Empty:
		origin = "host (none)"
	case origin == "":
		origin = "host"
	}
	name := e.Target
	if name == "" {
		name = "+"
	}
	var notes []string
	if e.Replaced {
		notes = append(notes, "replaces the host's")
	}
	if e.Scope == "thread" {
		notes = append(notes, "thread "+e.Thread)
	}
	if len(notes) > 0 {
		origin += " (" + strings.Join(notes, ", ") + ")"
	}
	return name + ": " + origin
}

func (c *console) turn(rest string) {
	s := c.thread()
	s.mu.Lock()
	s.turns++
	id := fmt.Sprintf("turn-%d", s.turns)
	s.mu.Unlock()
	ctx := c.e.ctx
	text := c.t().UserMessage(ctx, rest)
	c.t().TurnStarted(ctx, id, text)
	c.t().TurnFinished(ctx, id, text, "end_turn")
	c.printf("%s of thread %s finished; stored text: %q", id, devThread, text)
}

func (c *console) dispatch(rest string) {
	s := c.thread()
	name, args, _ := cutSpace(rest)
	if name == "" {
		c.printf("usage: /dispatch TOOL [JSON]")
		return
	}
	if args == "" {
		args = "{}"
	}
	s.mu.Lock()
	s.calls++
	id := fmt.Sprintf("call-%d", s.calls)
	s.mu.Unlock()
	ctx := c.e.ctx
	res := c.t().Dispatch(ctx, starhost.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)},
		func(ctx context.Context, call starhost.ToolCall) (starhost.ToolResult, bool) {
			if !slices.Contains(cliBuiltinTools, call.Name) {
				return starhost.ToolResult{}, false // a plugin or external tool: Dispatch runs it
			}
			return starhost.ToolResult{Text: fmt.Sprintf("(the dev console does not run the host's %s)", call.Name)}, true
		})
	if res.Risk == "" && res.Result.Error != nil {
		// Answered before any stage (an unknown tool, arguments that are
		// not JSON, a cancelled call): there is no risk or verdict to show.
		c.printf("dispatch %s %s: not run: %s: %s", id, name, res.Result.Error.Code, res.Result.Error.Message)
		return
	}
	verdict := "approved"
	if !res.Approved {
		verdict = "refused"
	}
	c.printf("dispatch %s %s: risk %s, %s", id, name, res.Risk, verdict)
	c.printf("  call: %s %s", res.Call.Name, res.Call.Arguments)
	switch r := res.Result; {
	case r.Error != nil:
		c.printf("  error %s: %s", r.Error.Code, r.Error.Message)
	case r.Data != nil:
		c.printf("  result: %s", r.Data)
	default:
		c.printf("  result: %s", r.Text)
	}
	for _, n := range res.Notes {
		c.printf("  note: %s", n.Message)
	}
}
