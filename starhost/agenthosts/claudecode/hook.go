// Package claudecode speaks Claude Code's command-hook and status-line
// protocols over agenthosts: it reads the event JSON Claude Code writes on
// a hook's stdin and answers with the exit code and JSON reply Claude Code
// documents (docs/agent-hosts.md has the mapping table).
//
// A hook is one process per event. Serve decodes the event, opens the
// session it belongs to (the caller's Open: a host started for the event's
// workspace) and maps it:
//
//	PreToolUse        tool_call hooks, classification, dispatch_policy, approval
//	                  → permissionDecision deny | ask, updatedInput
//	PostToolUse       tool_result hooks, dispatch_normalizer → additionalContext,
//	                  updatedMCPToolOutput for MCP tools
//	SessionStart      session_started, prompt sections → additionalContext
//	UserPromptSubmit  user_message, turn_started, chat context → additionalContext
//	Stop              turn_finished
//	PreCompact        compaction hooks
//	SessionEnd        session_ended
//
// Any other event is answered with no opinion. PreToolUse fails closed:
// bad input, a host that cannot start, a fault, a panic or a timeout deny
// the call with a reason, unless FailOpen is set.
package claudecode

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/starhost/agenthosts"
)

// Event is the part of a Claude Code hook event crystal-star reads: the
// fields every agent host sends (agenthosts.Event) and Claude Code's own.
type Event struct {
	agenthosts.Event
	TranscriptPath string `json:"transcript_path"`
	PermissionMode string `json:"permission_mode"`
	ToolUseID      string `json:"tool_use_id"`
	// LastAssistantMessage is the Stop event's final text, where Claude
	// Code sends it.
	LastAssistantMessage string `json:"last_assistant_message"`
	CustomInstructions   string `json:"custom_instructions"`
}

// Events lists the events Serve maps onto plugins; every other event is
// answered with no opinion.
var Events = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "PreCompact", "SessionEnd"}

// Reply is a hook's answer: what to print and the exit code.
type Reply = agenthosts.Reply

// Handler serves one hook event.
type Handler struct {
	// Open returns the session the event belongs to and a function that
	// releases it; an error fails the event (closed for PreToolUse).
	Open func(ctx context.Context, ev *Event) (*agenthosts.Session, func(), error)
	// FailOpen lets a tool call run when its policy cannot (the operator's
	// choice; the default denies).
	FailOpen bool
}

// ParseEvent decodes a hook event; input that is not a JSON object with a
// hook_event_name is an error.
func ParseEvent(data []byte) (*Event, error) {
	return agenthosts.ParseEvent[Event]("Claude Code", data)
}

// Serves reports whether Serve maps the event onto plugins.
func Serves(name string) bool { return slices.Contains(Events, name) }

// hook is Claude Code's hook protocol over agenthosts.Hook, which fails
// PreToolUse closed.
func (h *Handler) hook() agenthosts.Hook[*Event] {
	return agenthosts.Hook[*Event]{Command: "crystal-star hook claude-code", ToolEvent: "PreToolUse", Events: Events,
		Parse: ParseEvent, Open: h.Open, Serve: h.serve, FailOpen: h.FailOpen,
		Deny: func(why string) Reply {
			return agenthosts.JSONReply(map[string]any{"hookSpecificOutput": map[string]any{
				"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": why}}, why)
		}}
}

// Serve answers one event given as the JSON Claude Code wrote. It never
// panics: a panic on the way is the event's failure.
func (h *Handler) Serve(ctx context.Context, data []byte) Reply { return h.hook().Run(ctx, data) }

// fail answers an event that could not be served: PreToolUse is denied
// (unless FailOpen), every other event goes on with a note on stderr.
func (h *Handler) fail(ev *Event, why string) Reply { return h.hook().Fail(ev.HookEventName, why) }

func (h *Handler) serve(ctx context.Context, s *agenthosts.Session, ev *Event) Reply {
	switch ev.HookEventName {
	case "PreToolUse":
		return h.preToolUse(ctx, s, ev)
	case "PostToolUse":
		return postToolUse(ctx, s, ev)
	case "SessionStart":
		return agenthosts.ContextReply("SessionStart", s.SessionContext(ctx))
	case "UserPromptSubmit":
		return agenthosts.ContextReply("UserPromptSubmit", s.TurnStarted(ctx, ev.Prompt).Added)
	case "Stop":
		s.TurnFinished(ctx, "", ev.LastAssistantMessage, "end_turn")
	case "PreCompact":
		s.Compaction(ctx, ev.CustomInstructions)
	case "SessionEnd":
		s.End(ctx)
	}
	return Reply{}
}

func (h *Handler) preToolUse(ctx context.Context, s *agenthosts.Session, ev *Event) Reply {
	d := s.PreTool(ctx, ev.ToolName, ev.ToolUseID, ev.ToolInput)
	if d.Failure != "" {
		return h.fail(ev, d.Failure)
	}
	out := map[string]any{"hookEventName": "PreToolUse"}
	switch d.Verdict {
	case agenthosts.Deny:
		out["permissionDecision"], out["permissionDecisionReason"] = "deny", d.Reason
	case agenthosts.Ask:
		out["permissionDecision"], out["permissionDecisionReason"] = "ask", d.Reason
	}
	if d.Input != nil {
		// No decision comes with a rewrite that passed the policy again
		// (HK2): Claude Code's own permission rules decide on it, as on
		// any call crystal-star has no opinion about.
		out["updatedInput"] = d.Input
	}
	if len(out) == 1 {
		return Reply{}
	}
	return agenthosts.JSONReply(map[string]any{"hookSpecificOutput": out}, "")
}

func postToolUse(ctx context.Context, s *agenthosts.Session, ev *Event) Reply {
	text := responseText(ev.ToolResponse)
	out, changed := s.PostTool(ctx, ev.ToolName, ev.ToolUseID, ev.ToolInput, text)
	if !changed {
		return Reply{}
	}
	spec := map[string]any{"hookEventName": "PostToolUse"}
	if strings.HasPrefix(ev.ToolName, "mcp__") {
		spec["updatedMCPToolOutput"] = []any{map[string]any{"type": "text", "text": out}}
	} else {
		// A built-in tool's output cannot be replaced: the plugins'
		// version follows it as context.
		spec["additionalContext"] = "crystal-star plugins replaced this tool result with:\n" + out
	}
	return agenthosts.JSONReply(map[string]any{"hookSpecificOutput": spec}, "")
}

// responseText is the text of a tool_response: a string, an MCP content
// list's text, a Bash result's stdout and stderr, or the JSON.
func responseText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil && len(parts) > 0 {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	var bash struct {
		Stdout *string `json:"stdout"`
		Stderr string  `json:"stderr"`
	}
	if json.Unmarshal(raw, &bash) == nil && bash.Stdout != nil {
		return join(*bash.Stdout, bash.Stderr)
	}
	return string(raw)
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
