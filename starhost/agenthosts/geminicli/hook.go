// Package geminicli speaks Gemini CLI's command-hook protocol over
// agenthosts: it reads the event JSON Gemini CLI writes on a hook's stdin
// and answers in Gemini CLI's reply shape (docs/agent-hosts.md has the
// mapping table):
//
//	BeforeTool    tool_call hooks, classification, dispatch_policy, approval
//	              → decision deny | ask, hookSpecificOutput.tool_input
//	AfterTool     tool_result hooks, dispatch_normalizer → decision deny with
//	              the replacement as reason (Gemini CLI's way to replace a result)
//	SessionStart  session_started, prompt sections → additionalContext
//	BeforeAgent   user_message, turn_started, chat context → additionalContext
//	AfterAgent    turn_finished
//	PreCompress   compaction hooks
//	SessionEnd    session_ended
//
// Every other event gets no opinion. BeforeTool fails closed like Claude
// Code's PreToolUse (claudecode).
package geminicli

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/crystal-star/crystal-star/starhost/agenthosts"
)

// Event is the part of a Gemini CLI hook event crystal-star reads: the
// fields every agent host sends (agenthosts.Event) and Gemini CLI's own.
type Event struct {
	agenthosts.Event
	PromptResponse string `json:"prompt_response"`
}

// Events lists the events Serve maps onto plugins.
var Events = []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "PreCompress", "SessionEnd"}

// Reply is a hook's answer: what to print and the exit code.
type Reply = agenthosts.Reply

// Handler serves one hook event.
type Handler struct {
	// Open returns the session the event belongs to and a function that
	// releases it; an error fails the event (closed for BeforeTool).
	Open func(ctx context.Context, ev *Event) (*agenthosts.Session, func(), error)
	// FailOpen lets a tool call run when its policy cannot.
	FailOpen bool
}

// ParseEvent decodes a hook event; input that is not a JSON object with a
// hook_event_name is an error.
func ParseEvent(data []byte) (*Event, error) { return agenthosts.ParseEvent[Event]("Gemini CLI", data) }

// hook is Gemini CLI's hook protocol over agenthosts.Hook, which fails
// BeforeTool closed.
func (h *Handler) hook() agenthosts.Hook[*Event] {
	return agenthosts.Hook[*Event]{Command: "crystal-star hook gemini-cli", ToolEvent: "BeforeTool", Events: Events,
		Parse: ParseEvent, Open: h.Open, Serve: h.serve, FailOpen: h.FailOpen,
		Deny: func(why string) Reply {
			return agenthosts.JSONReply(map[string]any{"decision": "deny", "reason": why}, "")
		}}
}

// Serve answers one event given as the JSON Gemini CLI wrote. It never
// panics: a panic on the way is the event's failure.
func (h *Handler) Serve(ctx context.Context, data []byte) Reply { return h.hook().Run(ctx, data) }

// fail answers an event that could not be served: BeforeTool is denied
// (unless FailOpen), every other event goes on with a note on stderr.
func (h *Handler) fail(ev *Event, why string) Reply { return h.hook().Fail(ev.HookEventName, why) }

func (h *Handler) serve(ctx context.Context, s *agenthosts.Session, ev *Event) Reply {
	switch ev.HookEventName {
	case "BeforeTool":
		d := s.PreTool(ctx, ev.ToolName, "", ev.ToolInput)
		if d.Failure != "" {
			return h.fail(ev, d.Failure)
		}
		out := map[string]any{}
		switch d.Verdict {
		case agenthosts.Deny:
			out["decision"], out["reason"] = "deny", d.Reason
		case agenthosts.Ask:
			out["decision"], out["reason"], out["systemMessage"] = "ask", d.Reason, d.Reason
		}
		if d.Input != nil {
			out["hookSpecificOutput"] = map[string]any{"hookEventName": "BeforeTool", "tool_input": d.Input}
		}
		if len(out) == 0 {
			return Reply{}
		}
		return agenthosts.JSONReply(out, "")
	case "AfterTool":
		text := responseText(ev.ToolResponse)
		if out, changed := s.PostTool(ctx, ev.ToolName, "", ev.ToolInput, text); changed {
			// Gemini CLI replaces a tool's result with the reason of a deny.
			return agenthosts.JSONReply(map[string]any{"decision": "deny", "reason": out}, "")
		}
	case "SessionStart":
		return agenthosts.ContextReply("SessionStart", s.SessionContext(ctx))
	case "BeforeAgent":
		return agenthosts.ContextReply("BeforeAgent", s.TurnStarted(ctx, ev.Prompt).Added)
	case "AfterAgent":
		s.TurnFinished(ctx, agenthosts.TurnID(ev.Prompt), ev.PromptResponse, "end_turn")
	case "PreCompress":
		s.Compaction(ctx, "")
	case "SessionEnd":
		s.End(ctx)
	}
	return Reply{}
}

// responseText is the text the model gets of a tool_response: its
// llmContent (a string or parts with text), else its error, else the JSON.
func responseText(raw json.RawMessage) string {
	var r struct {
		LLMContent json.RawMessage `json:"llmContent"`
		Error      *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return string(raw)
	}
	var s string
	if json.Unmarshal(r.LLMContent, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(r.LLMContent, &parts) == nil && len(parts) > 0 {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	if r.Error != nil {
		return r.Error.Message
	}
	return string(raw)
}
