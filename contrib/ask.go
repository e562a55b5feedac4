package contrib

import (
	"context"
	"fmt"
)

// Questions to the person (ctx.ask): a tool or command asks, the host's
// answerer (an MCP client's elicitation/create, the dev console's prompt)
// answers, and any other host declines. The time spent waiting counts
// against neither the step budget nor callback_timeout but against
// ask_timeout, its own limit.

// Question is one ctx.ask: a message and the flat JSON object schema of
// the answer (top-level properties of string, number, integer or boolean
// type, enums included), as MCP elicitation takes it.
type Question struct {
	Message string         `json:"message"`
	Schema  map[string]any `json:"schema"`
	// Fields are the schema's property names in the order the plugin
	// wrote them (a map has none), for answerers that ask one by one.
	Fields []string `json:"fields,omitempty"`
}

// The actions of an Answer, as MCP names them.
const (
	AnswerAccept  = "accept"  // the person answered: Content holds the values
	AnswerDecline = "decline" // the person said no, or nobody can answer
	AnswerCancel  = "cancel"  // the person dismissed the question, or ask_timeout passed
)

// Answer is the person's answer to a Question.
type Answer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// WaitClock stops a call's wall-clock limit while it waits for a person:
// Pause stops the clock and returns the function that restarts it. A host
// that bounds a call's time (a worker call under callback_timeout) puts
// one in the call's context; ctx.ask pauses it around the question.
type WaitClock func() (resume func())

type waitClockKey struct{}

// WithWaitClock returns ctx carrying w, for the calls run under it.
func WithWaitClock(ctx context.Context, w WaitClock) context.Context {
	return context.WithValue(ctx, waitClockKey{}, w)
}

// PauseWaitClock pauses the wait clock of ctx, if it carries one, and
// returns the function that resumes it (a no-op otherwise).
func PauseWaitClock(ctx context.Context) (resume func()) {
	if w, _ := ctx.Value(waitClockKey{}).(WaitClock); w != nil {
		return w()
	}
	return func() {}
}

// CheckQuestionSchema checks that s is a schema ctx.ask can send: an
// object whose properties are each an object schema of a primitive type
// (string, number, integer, boolean) or an enum (an array of strings for a
// multiple choice), with no nesting. Its error says what is wrong.
func CheckQuestionSchema(s map[string]any) error {
	if t, _ := s["type"].(string); t != "object" {
		return fmt.Errorf("the schema's type must be \"object\", not %v", s["type"])
	}
	props, ok := s["properties"].(map[string]any)
	if !ok {
		if _, present := s["properties"]; present {
			return fmt.Errorf("the schema's properties must be a dict")
		}
		return nil
	}
	for name, p := range props {
		ps, ok := p.(map[string]any)
		if !ok {
			return fmt.Errorf("property %q must be a dict (a schema)", name)
		}
		switch t := ps["type"]; t {
		case "string", "number", "integer", "boolean", "array":
		case nil:
			if ps["enum"] == nil && ps["oneOf"] == nil && ps["anyOf"] == nil {
				return fmt.Errorf("property %q has no type; want string, number, integer, boolean or an enum", name)
			}
		default:
			return fmt.Errorf("property %q has type %v; a question takes string, number, integer, boolean or an enum (no nesting)", name, t)
		}
	}
	return nil
}
