package starhost

import (
	"context"
	"errors"
	"time"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// Question is what a plugin's ctx.ask puts to the person: a message and
// the JSON object schema of the answer. Schema is flat, as MCP elicitation
// takes it: top-level properties of string, number, integer or boolean
// type, enums included; an empty properties object asks for a
// confirmation.
type Question struct {
	Plugin  string         // the plugin that asks
	Message string         // what to show the person
	Schema  map[string]any // the answer's schema
	// Fields are the schema's property names in the order the plugin
	// wrote them, for an answerer that asks one by one.
	Fields []string
}

// The actions of an Answer, as MCP elicitation names them.
const (
	AnswerAccept  = "accept"  // the person answered: Content holds the values
	AnswerDecline = "decline" // the person said no
	AnswerCancel  = "cancel"  // the person dismissed the question
)

// Answer is the person's answer to a Question. Content holds the values
// of an accepted answer, keyed by property name, as JSON decodes them.
type Answer struct {
	Action  string
	Content map[string]any
}

// AskFunc answers the questions of plugins' tools and commands (ctx.ask).
// It is called with the asking call's context, from any goroutine (in
// process isolation, the one serving the worker); it must return when ctx ends
// (ask_timeout, the call's cancellation). The ctx is the call's: an
// embedder that serves several people finds the one the call is for
// there (as starhost/mcpserve finds the MCP session). An error is a
// failure to ask, which fails the callback; a person's refusal is
// AnswerDecline.
type AskFunc func(ctx context.Context, q Question) (Answer, error)

// DefaultAskTimeout bounds one ctx.ask when neither Options.AskTimeout nor
// config.toml's ask_timeout sets it: long enough to read a question and
// type an answer, short enough that a question nobody sees does not hold
// its callback (and a reload's drain) for good.
const DefaultAskTimeout = 5 * time.Minute

var _ builtins.AskSource = services{}

var errAskTimeout = errors.New("ask_timeout")

// Ask implements builtins.AskSource: Options.Ask under ask_timeout, or a
// decline when the host has nobody to ask. A question past ask_timeout is
// a cancel (the callback gets None) and an AskUnanswered note.
func (s services) Ask(ctx context.Context, plugin string, q contrib.Question) (contrib.Answer, error) {
	ask := s.h.opts.Ask
	if ask == nil {
		return contrib.Answer{Action: contrib.AnswerDecline}, nil
	}
	timeout := s.h.Config().Limits.AskTimeout
	actx, cancel := context.WithTimeoutCause(ctx, timeout, errAskTimeout)
	defer cancel()
	a, err := ask(actx, Question{Plugin: plugin, Message: q.Message, Schema: q.Schema, Fields: q.Fields})
	if ctx.Err() == nil && errors.Is(context.Cause(actx), errAskTimeout) {
		s.h.note(contrib.Diag(contrib.AskUnanswered, plugin, contrib.Pos{},
			"nobody answered the question %q within ask_timeout %s; the callback got None", q.Message, timeout))
		return contrib.Answer{Action: contrib.AnswerCancel}, nil
	}
	if err != nil {
		return contrib.Answer{}, err
	}
	switch a.Action {
	case AnswerAccept, AnswerDecline, AnswerCancel:
	default:
		return contrib.Answer{}, errors.New("the answerer gave the action " + a.Action + "; want accept, decline or cancel")
	}
	return contrib.Answer{Action: a.Action, Content: a.Content}, nil
}

// askTimeout is the ask_timeout before config.toml: Options, else the
// default.
func (o *Options) askTimeout() time.Duration {
	if o.AskTimeout > 0 {
		return o.AskTimeout
	}
	return DefaultAskTimeout
}
