// Package agenthosts serves a started starhost.Host to agent hosts that
// call command hooks — Claude Code and Gemini CLI — in terms neither of
// them knows: a tool call to decide on, a tool result to normalise, the
// context to add at the start of a session or a turn, the moments of a
// turn. The host-specific shapes (event names, JSON replies, exit codes)
// live in one package per agent host (claudecode, geminicli), each a thin
// translation over this one, so a third agent host is one more adapter.
//
// Like starhost/mcpserve it uses only starhost's public API, and it keeps
// that use in this file: the agent session is one host session
// (starhost.Session) with one thread, both named by the agent host's
// session id.
//
// It fails closed where that is the safe answer (docs/agent-hosts.md): a
// tool call whose policy cannot run — a plugin faulted, a hook failed, the
// decision timed out or panicked — is denied with a reason that says why,
// unless the operator chose fail-open. Every other moment fails open:
// what could not run is a note.
package agenthosts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/toolwire"
)

// sessionsOf returns the host sessions of the agent sessions h serves, by
// agent session id: Session is a value its callers copy, so the handles
// live there. The map is held by h itself (through a subscription that
// lasts as long as h), and found here by a weak pointer: a host that
// closes with unended sessions is collected with its sessions once its
// embedder lets go of it, instead of staying reachable from this package.
func sessionsOf(h *starhost.Host) *hostSessions {
	key := weak.Make(h)
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if hs := registry.m[key].Value(); hs != nil {
		return hs
	}
	hs := &hostSessions{m: map[string]*starhost.Session{}}
	h.Subscribe(func(starhost.Change) { runtime.KeepAlive(hs) }) // h holds hs
	if registry.m == nil {
		registry.m = map[weak.Pointer[starhost.Host]]weak.Pointer[hostSessions]{}
	}
	if _, ok := registry.m[key]; !ok {
		runtime.AddCleanup(h, forget, key)
	}
	registry.m[key] = weak.Make(hs)
	return hs
}

// registry finds each host's sessions; it holds neither.
var registry struct {
	mu sync.Mutex
	m  map[weak.Pointer[starhost.Host]]weak.Pointer[hostSessions]
}

// forget drops the entry of a host that was collected.
func forget(key weak.Pointer[starhost.Host]) {
	registry.mu.Lock()
	delete(registry.m, key)
	registry.mu.Unlock()
}

// hostSessions are one host's sessions, by agent session id.
type hostSessions struct {
	mu sync.Mutex
	m  map[string]*starhost.Session
}

// HostSession returns the host session that serves the agent session,
// starting it on first use, with the session's facts as they are now: a
// server of the same agent session (its MCP server) serves its requests
// through it too. It fails only when no session can be started (the host
// is closed); each caller then takes its event's safe answer.
func (s *Session) HostSession(ctx context.Context) (*starhost.Session, error) {
	all := sessionsOf(s.Host)
	all.mu.Lock()
	hs := all.m[s.ID]
	all.mu.Unlock()
	if hs != nil {
		if f := s.Facts(); hs.Facts() != f {
			hs.SetFacts(f)
		}
		return hs, nil
	}
	hs, err := s.Host.NewSession(context.WithoutCancel(ctx), starhost.SessionOptions{Facts: s.Facts()})
	if err != nil {
		return nil, err
	}
	all.mu.Lock()
	won := all.m[s.ID]
	if won == nil {
		all.m[s.ID] = hs
	}
	all.mu.Unlock()
	if won != nil {
		hs.End(ctx)
		return won, nil
	}
	return hs, nil
}

// thread is the agent session's one thread.
func (s *Session) thread(ctx context.Context) (*starhost.Thread, error) {
	hs, err := s.HostSession(ctx)
	if err != nil {
		return nil, err
	}
	return hs.Thread(s.ID), nil
}

// Session is one agent-host session served by a started host: its id (the
// thread every call runs on), workspace and mode. It is safe for
// concurrent use when its Host is.
type Session struct {
	Host *starhost.Host
	// ID is the agent host's session id; it names the thread.
	ID string
	// Workspace is the session's working directory.
	Workspace string
	// Mode is the agent host's permission mode, passed to plugins as
	// ctx.approval_mode; "plan" also selects the plan catalog.
	Mode string
	// Model is the agent host's model id, where it says (ctx.model).
	Model string
}

// HostOptions returns o made ready to serve agent-host hooks. The agent
// host owns the tools, their classification and the system prompt, so o
// names no built-in tool, classification or point default of its own: every
// tool name the agent host sends reaches the plugins unchanged. The
// approval stage answers "ask the user" (Decision Ask) for a call whose
// classification or approval hooks require a prompt, since the agent host
// owns the prompt, and approves the others.
func HostOptions(o starhost.Options) starhost.Options {
	o.BuiltinTools, o.Classifications = nil, nil
	o.Points = starhost.PointDefaults{Approve: approve}
	return o
}

// askKey marks the context of one PreTool decision; the approver records
// there that the call needs a prompt.
type askKey struct{}

// approve approves every call for the agent host, which runs its own
// prompt, and records the calls that need one: the tool_call hooks still
// run on them and PreTool answers Ask.
func approve(ctx context.Context, req starhost.ApprovalRequest) starhost.Approval {
	if p, ok := ctx.Value(askKey{}).(*bool); ok && req.Prompt {
		*p = true
	}
	return starhost.Approval{Approved: true}
}

// Facts are the session's facts as plugins see them on ctx; set them on
// the host before it starts, so attach callbacks see them too.
func (s *Session) Facts() starhost.Facts {
	mode := "work"
	if s.Mode == "plan" {
		mode = starhost.PlanMode
	}
	return starhost.Facts{Workspace: s.Workspace, SessionID: s.ID, Mode: mode, ApprovalMode: s.Mode, Model: s.Model}
}

// Verdict is what PreTool decided.
type Verdict string

const (
	// NoOpinion leaves the call to the agent host's own permission rules.
	NoOpinion Verdict = ""
	// Deny refuses the call; Reason says why and is shown to the model.
	Deny Verdict = "deny"
	// Ask says the user must confirm the call.
	Ask Verdict = "ask"
)

// Decision is PreTool's answer for one tool call.
type Decision struct {
	Verdict Verdict
	// Reason explains a denial or a prompt, in the plugin's words.
	Reason string
	// Input is the call's arguments after the tool_call hooks, set only
	// when a hook rewrote them.
	Input json.RawMessage
	// Failure says why the policy could not run, or is "": the adapter
	// denies the call unless the operator chose fail-open, and Verdict is
	// then Deny with Failure as its Reason.
	Failure string
	// Notes are what went wrong on the way (hooks skipped, entries failed).
	Notes []starhost.Note
}

// PreTool decides on one tool call before the agent host runs it: the
// tool_call hooks, classification, dispatch_policy and the approval stage,
// as Dispatch runs them, without invoking anything (the agent host runs
// the tool). A call the policy could not decide on is denied: a plugin
// that faulted, a failing policy entry or tool_call hook (its rewrite
// would have been lost), a cancelled ctx. A tool_call hook that renames
// the call is denied too: no agent host can run another tool in its place.
func (s *Session) PreTool(ctx context.Context, name, id string, input json.RawMessage) Decision {
	if why := s.faulted(); why != "" {
		return Decision{Verdict: Deny, Reason: why, Failure: why}
	}
	asked := false
	ctx = context.WithValue(ctx, askKey{}, &asked)
	var ran *starhost.ToolCall
	th, err := s.thread(ctx)
	if err != nil {
		why := "crystal-star could not run the policy: " + err.Error()
		return Decision{Verdict: Deny, Reason: why, Failure: why}
	}
	res := th.Dispatch(ctx, starhost.ToolCall{ID: id, Name: name, Arguments: input},
		func(_ context.Context, call starhost.ToolCall) (starhost.ToolResult, bool) {
			ran = &call
			return starhost.ToolResult{Text: "run by the agent host"}, true // nothing runs here
		})
	d := Decision{Notes: res.Notes}
	if bad := failures(res.Notes); bad != "" {
		why := "crystal-star could not run the policy: " + bad
		return Decision{Verdict: Deny, Reason: why, Failure: why, Notes: res.Notes}
	}
	switch {
	case ran == nil:
		d.Verdict, d.Reason = Deny, denial(res.Result)
		return d
	case ran.Name != name:
		d.Verdict, d.Reason = Deny, fmt.Sprintf("crystal-star: a plugin rewrote the call of %s into a call of %s, which the agent host cannot run in its place", name, ran.Name)
		return d
	case !sameJSON(ran.Arguments, input):
		d.Input = ran.Arguments
	}
	if asked && s.knows(ctx, name, input, res) {
		d.Verdict, d.Reason = Ask, fmt.Sprintf("crystal-star: this %s call is %s risk and needs your approval", name, res.Risk)
	}
	return d
}

// knows reports whether a prompt was asked for by someone who knows the
// tool: a classifier, or an approval hook that raised the risk. An
// unknown tool asks by default, and for those the agent host's own rules
// decide whether to ask.
func (s *Session) knows(ctx context.Context, name string, input json.RawMessage, res starhost.DispatchResult) bool {
	if res.Risk != res.Classification.Risk {
		return true
	}
	hs, err := s.HostSession(ctx)
	if err != nil {
		return false
	}
	cl, err := hs.Classify(ctx, name, input)
	return err == nil && cl.Known
}

// faulted names the plugins that faulted, or "".
func (s *Session) faulted() string {
	var ids []string
	for _, p := range s.Host.Plugins() {
		if p.State == starhost.StateFaulted {
			ids = append(ids, p.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("crystal-star refuses tool calls while a plugin is faulted (its policy cannot run): %s; run 'crystal-star plugins' to see why", strings.Join(ids, ", "))
}

// failures is the first error note of a dispatch — a policy, hook or
// entry that failed — or "".
func failures(notes []starhost.Note) string {
	for _, n := range notes {
		if n.Severity == starhost.SeverityError || n.Code == "HookSkipped" {
			return n.String()
		}
	}
	return ""
}

// denial is the reason of a refused call, without the call_denied code.
func denial(r starhost.ToolResult) string {
	if r.Error == nil {
		return "crystal-star denied the call"
	}
	return r.Error.Message
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(toolwire.Arguments(a), &x) != nil || json.Unmarshal(toolwire.Arguments(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// PostTool runs the tool_result hooks and the dispatch normalizers on the
// result of a call the agent host ran. It returns the result text the
// plugins want the model to see and whether they changed it. A hook or
// normalizer that fails is a note (Options.Notes): the agent host's result
// stands.
func (s *Session) PostTool(ctx context.Context, name, id string, input json.RawMessage, text string) (string, bool) {
	out := text
	hs, err := s.HostSession(ctx)
	if err != nil {
		return text, false
	}
	hr, err := hs.RunHook(ctx, "tool_result", map[string]any{"thread": s.ID, "id": id, "name": name, "text": text})
	if err == nil {
		if t, ok := hr.Payload["text"].(string); ok {
			out = t
		}
	}
	if res := hs.Thread(s.ID).Resolve(starhost.PointName("dispatch_normalizer")); res != nil && len(res.Entries) > 0 {
		var args any
		_ = json.Unmarshal(toolwire.Arguments(input), &args)
		in := map[string]any{"thread": s.ID, "call": map[string]any{"thread": s.ID, "id": id, "name": name, "arguments": args},
			"result": map[string]any{"text": out}}
		if v, err := res.Fold(ctx, in, normalized); err == nil {
			if r, ok := v.(map[string]any)["result"].(map[string]any); ok {
				out = resultText(r)
			}
		}
	}
	return out, out != text
}

// normalized keeps a normalizer's {text, data, error} as the next input.
func normalized(in, out any) (any, error) {
	m, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("returned %T; want a result {text, data, error} or None", out)
	}
	next := map[string]any{}
	for k, v := range in.(map[string]any) {
		next[k] = v
	}
	next["result"] = m
	return next, nil
}

func resultText(r map[string]any) string {
	if e, ok := r["error"].(map[string]any); ok {
		return fmt.Sprintf("%v: %v", e["code"], e["message"])
	}
	if t, ok := r["text"].(string); ok && r["data"] == nil {
		return t
	}
	b, _ := json.Marshal(r["data"])
	return string(b)
}

// SessionContext starts the session (session_started) and returns the
// context its system prompt carries: the plugins' prompt sections, bound.
func (s *Session) SessionContext(ctx context.Context) string {
	th, err := s.thread(ctx) // the host session starts with its first use
	if err != nil {
		return ""
	}
	p := th.AssemblePrompt(ctx)
	var parts []string
	for _, sec := range p.Sections {
		if sec.Origin != "" && strings.TrimSpace(sec.Text) != "" {
			parts = append(parts, sec.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Turn is what TurnStarted returns for one user prompt.
type Turn struct {
	// ID names the turn (derived from the prompt: agent hosts give none).
	ID string
	// Text is the user's message after the user_message hooks.
	Text string
	// Context is the turn's chat context and the thread's prompt
	// sections added at run time, joined.
	Context string
	// Added is what the agent host adds to the model's context for the
	// turn: Context, preceded by the rewritten message when the
	// user_message hooks rewrote it (an agent host cannot replace the
	// prompt, so the rewrite is told as context).
	Added string
}

// TurnStarted runs the user_message and turn_started hooks for a prompt
// and gathers the context the turn adds.
func (s *Session) TurnStarted(ctx context.Context, prompt string) Turn {
	t := Turn{ID: TurnID(prompt), Text: prompt}
	th, err := s.thread(ctx)
	if err != nil {
		return t
	}
	t.Text = th.UserMessage(ctx, prompt)
	th.TurnStarted(ctx, t.ID, t.Text)
	parts := slices.Clone(th.ChatContext(ctx, t.ID))
	for _, sec := range th.AssemblePrompt(ctx).Sections {
		if sec.Scope == "thread" && strings.TrimSpace(sec.Text) != "" {
			parts = append(parts, sec.Text)
		}
	}
	t.Context = strings.Join(parts, "\n\n")
	t.Added = t.Context
	if t.Text != prompt {
		t.Added = "A crystal-star plugin rewrote the user's message as:\n" + t.Text
		if t.Context != "" {
			t.Added += "\n\n" + t.Context
		}
	}
	return t
}

// TurnID names a turn by its prompt: agent hosts give turns no id, and the
// Stop event does not repeat the prompt, so a turn's finish uses "".
func TurnID(prompt string) string {
	sum := sha256.Sum256([]byte(prompt))
	return "turn-" + hex.EncodeToString(sum[:6])
}

// TurnFinished runs the turn_finished hooks and the turn observers.
func (s *Session) TurnFinished(ctx context.Context, turn, text, stopReason string) {
	if th, err := s.thread(ctx); err == nil {
		th.TurnFinished(ctx, turn, text, stopReason)
	}
}

// Compaction runs the compaction hooks before the agent host compacts;
// it returns the instructions after them (an agent host that takes
// instructions from a hook appends them).
func (s *Session) Compaction(ctx context.Context, instructions string) string {
	hs, err := s.HostSession(ctx)
	if err != nil {
		return instructions
	}
	hr, err := hs.RunHook(ctx, "compaction", map[string]any{"thread": s.ID, "prompt": instructions, "body": ""})
	if err != nil {
		return instructions
	}
	p, _ := hr.Payload["prompt"].(string)
	return p
}

// End ends the session: the session_ended hooks and the thread's end.
func (s *Session) End(ctx context.Context) {
	hs, err := s.HostSession(ctx)
	if err != nil {
		return
	}
	hs.Thread(s.ID).End(ctx)
	all := sessionsOf(s.Host)
	all.mu.Lock()
	if all.m[s.ID] == hs {
		delete(all.m, s.ID)
	}
	all.mu.Unlock()
	hs.End(ctx)
}

// StatusLine returns the operator's status line.
func (s *Session) StatusLine() string {
	hs, err := s.HostSession(context.Background())
	if err != nil {
		return ""
	}
	return hs.StatusLine()
}
