package agenthosts

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/crystal-star/crystal-star/starhost/toolwire"
)

// Reply is a hook command's answer: what to print and the exit code.
type Reply struct {
	Stdout []byte
	Stderr string
	Exit   int
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
