package agenthosts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/starhost/toolwire"
)

// Reply is a hook command's answer: what to print and the exit code.
type Reply struct {
	Stdout []byte
	Stderr string
	Exit   int
}

// JSONReply is a reply printing v as one JSON line, with note on stderr
// ("crystal-star: note") when there is one.
func JSONReply(v any, note string) Reply {
	b, _ := json.Marshal(v)
	if note != "" {
		note = "crystal-star: " + note + "\n"
	}
	return Reply{Stdout: append(b, '\n'), Stderr: note}
}

// ContextReply adds text to the model's context at event, in the shape
// both agent hosts read (hookSpecificOutput.additionalContext); blank text
// is no reply.
func ContextReply(event, text string) Reply {
	if strings.TrimSpace(text) == "" {
		return Reply{}
	}
	return JSONReply(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}}, "")
}

// HookEvent is what Hook needs of one agent host's decoded event.
type HookEvent interface {
	// EventName is the event's name ("PreToolUse", "BeforeTool", …).
	EventName() string
	// ToolCall is the tool event's tool name and input.
	ToolCall() (name string, input json.RawMessage)
}

// Hook is one agent host's command-hook protocol: the parts that differ
// between hosts. Run is the part that does not — above all, that the
// event deciding a tool call fails closed — so every host's adapter fails
// the same way.
type Hook[E HookEvent] struct {
	// Command names the command in an error about its input
	// ("crystal-star hook claude-code").
	Command string
	// ToolEvent is the event that decides a tool call: it is denied (Deny)
	// whenever its policy cannot run, unless FailOpen.
	ToolEvent string
	// Events are the events Serve maps; every other one gets no opinion.
	Events []string
	Parse  func(data []byte) (E, error)
	// Open returns the session the event belongs to and its release.
	Open func(ctx context.Context, ev E) (*Session, func(), error)
	// Serve maps one served event onto the session.
	Serve func(ctx context.Context, s *Session, ev E) Reply
	// Deny is the host's answer denying a tool call, saying why.
	Deny     func(why string) Reply
	FailOpen bool
}

// Run answers one event as the agent host wrote it. It never panics: a
// panic on the way is the event's failure. Input that is no event of the
// host's exits 2, which blocks a tool call in both hosts.
func (h Hook[E]) Run(ctx context.Context, data []byte) (r Reply) {
	ev, err := h.Parse(data)
	if err != nil {
		return Reply{Stderr: h.Command + ": " + err.Error() + "\n", Exit: 2}
	}
	name := ev.EventName()
	if !slices.Contains(h.Events, name) {
		return Reply{}
	}
	defer func() {
		if p := recover(); p != nil {
			r = h.Fail(name, fmt.Sprintf("crystal-star crashed while serving %s: %v", name, p))
		}
	}()
	if tool, input := ev.ToolCall(); name == h.ToolEvent && (tool == "" || !json.Valid(toolwire.Arguments(input))) {
		return h.Fail(name, "crystal-star cannot read the "+name+" event: it has no tool_name or its tool_input is not JSON")
	}
	s, release, err := h.Open(ctx, ev)
	if err != nil {
		return h.Fail(name, "crystal-star could not start its plugins: "+err.Error())
	}
	defer release()
	r = h.Serve(ctx, s, ev)
	if name == h.ToolEvent && ctx.Err() != nil {
		return h.Fail(name, "crystal-star ran out of time deciding on the call ("+ctx.Err().Error()+")")
	}
	return r
}

// Fail answers an event that could not be served: the tool event is
// denied (unless FailOpen), every other event goes on with a note on
// stderr.
func (h Hook[E]) Fail(event, why string) Reply {
	if event == h.ToolEvent && !h.FailOpen {
		return h.Deny(why + " (fail-closed; see docs/agent-hosts.md)")
	}
	return Reply{Stderr: "note: " + why + "\n"}
}

// Event is what every agent host's hook event carries alike, under the
// same JSON names (Claude Code's and Gemini CLI's): each host's event
// embeds it and adds its own fields. A *Event is a HookEvent.
type Event struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	Prompt        string          `json:"prompt"`
	Source        string          `json:"source"`
	Trigger       string          `json:"trigger"`
	Reason        string          `json:"reason"`
}

// EventName returns hook_event_name.
func (ev *Event) EventName() string { return ev.HookEventName }

// ToolCall returns tool_name and tool_input.
func (ev *Event) ToolCall() (string, json.RawMessage) { return ev.ToolName, ev.ToolInput }

// ParseEvent decodes data as host's hook event E (host names the agent
// host in errors: "Claude Code"); input that is not a JSON object with a
// hook_event_name is an error.
func ParseEvent[E any, P interface {
	*E
	HookEvent
}](host string, data []byte) (P, error) {
	ev := P(new(E))
	if err := json.Unmarshal(data, ev); err != nil {
		return nil, fmt.Errorf("the hook input is not a %s hook event as JSON (an object with \"hook_event_name\"): %s", host, jsonProblem(data, err))
	}
	if ev.EventName() == "" {
		return nil, fmt.Errorf("the hook input has no hook_event_name: is this command configured as a %s hook?", host)
	}
	return ev, nil
}

// jsonProblem says where and why data is not the JSON object expected, in
// words rather than encoding/json's ("invalid character 'o' in literal
// null (expecting 'u')"): the byte offset and what stands there.
func jsonProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	start := len(data) - len(strings.TrimLeft(string(data), " \t\r\n"))
	switch {
	case start == len(data):
		return "the input is empty"
	case data[start] != '{':
		return fmt.Sprintf("at byte %d: found %q, want a JSON object", start, snippet(data[start:]))
	case errors.As(err, &syn):
		at := int(syn.Offset) - 1 // Offset counts the bytes read, the bad one included
		// At the end, the scanner reports the space it pretends to read.
		atEnd := strings.HasPrefix(syn.Error(), "unexpected end") ||
			strings.HasPrefix(syn.Error(), "invalid character ' '") && (at >= len(data) || data[at] != ' ')
		if at < 0 || at >= len(data) || atEnd {
			return fmt.Sprintf("at byte %d: the input ends before the JSON object is complete", len(data))
		}
		return fmt.Sprintf("at byte %d: unexpected %q", at, snippet(data[at:]))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("at byte %d: found a JSON %s, want an object", typ.Offset-1, typ.Value)
		}
		return fmt.Sprintf("at byte %d: field %q is a JSON %s, want %s", typ.Offset-1, typ.Field, typ.Value, typ.Type)
	}
	return err.Error()
}

// snippet is the start of b for a message: at most 16 bytes, up to the
// end of the line (a line break of its own when b starts with one).
func snippet(b []byte) []byte {
	if len(b) > 16 {
		b = b[:16]
	}
	if i := strings.IndexAny(string(b), "\r\n"); i > 0 {
		b = b[:i]
	}
	return b
}
