package starhost

import (
	"errors"
	"fmt"
	"strings"
)

// Code is the one vocabulary of what went wrong. Every error the host
// returns is a Code or wraps one, and every failed ToolResult carries one,
// so a host branches with errors.Is:
//
//	if errors.Is(res.Err(), starhost.ErrUnknownTool) { … }
//	if errors.Is(err, starhost.ErrNoPlugin) { … }
//
// Codes of calls and operations are snake_case; a plugin's own
// error(code, message) may carry any code of its own except the codes a
// tool call ends with (ErrUnknownTool … ErrPointFailed). Diagnostic codes
// (Note.Code) are PascalCase, one per finding (docs/diagnostics.md).
type Code string

// Error returns the code itself, so a Code is an error a caller can wrap
// with %w and find again with errors.Is.
func (c Code) Error() string { return string(c) }

// Codes of tool calls. The first three mean the tool never started: safe
// to retry or to correct the arguments. ErrCancelled means the caller's
// context ended, before the call (nothing ran) or during it.
// ErrToolInterrupted means a started call was stopped because its
// generation retired past the cleanup timeout: it may have had effects.
const (
	ErrUnknownTool      Code = "unknown_tool"
	ErrInvalidArguments Code = "invalid_arguments"
	ErrToolUnavailable  Code = "tool_unavailable"
	ErrCancelled        Code = "cancelled"
	ErrToolInterrupted  Code = "tool_interrupted"
	// ErrToolFailed: the tool ran and failed (an uncaught error, a budget
	// exhausted); its message says what and where.
	ErrToolFailed Code = "tool_failed"
	// ErrInvalidOutput: the tool ran but its result is not a structured
	// value its output_schema accepts.
	ErrInvalidOutput Code = "invalid_output"
	// ErrContentTooLarge: a result's content exceeds the host's limits.
	ErrContentTooLarge Code = "content_too_large"
	// ErrCallDenied: the policy, the classification or the approval stage
	// refused the call; its message says which and why.
	ErrCallDenied Code = "call_denied"
	// ErrPointFailed: an authoritative contribution point's entry failed.
	ErrPointFailed Code = "point_failed"
)

// Codes of commands, skills, hooks and plugin operations.
const (
	// ErrBuiltinCommand: the name is one of the embedder's built-in verbs,
	// which always win (CC11); the embedder handles it.
	ErrBuiltinCommand Code = "builtin_command"
	// ErrUnknownCommand: no markdown or plugin command has the name.
	ErrUnknownCommand Code = "unknown_command"
	// ErrNoSkill: no skill has the name.
	ErrNoSkill Code = "unknown_skill"
	// ErrNoPlugin: no plugin root holds the id.
	ErrNoPlugin Code = "unknown_plugin"
	// ErrUnknownHookEvent: RunHook was given a name that is not an
	// ordinary hook event.
	ErrUnknownHookEvent Code = "unknown_hook_event"
	// ErrNotApplied: an operator operation changed nothing; the error's
	// message says why (Operator).
	ErrNotApplied Code = "not_applied"
	// ErrPluginEnabled: Install would replace a plugin that is enabled;
	// disable it first. Wrapped with ErrNotApplied.
	ErrPluginEnabled Code = "plugin_enabled"
)

// Codes of the host's own life (Start, Close).
const (
	// ErrHostStarted: Start was called on a host already started.
	ErrHostStarted Code = "host_started"
	// ErrHostClosed: the host is closed; it cannot start again.
	ErrHostClosed Code = "host_closed"
	// ErrNotDrained: Close waited past the cleanup timeout for calls of
	// the generations it names; they were cancelled and may have been cut
	// short.
	ErrNotDrained Code = "not_drained"
)

// Codes of the session's model selection and of model clients.
const (
	// ErrUnknownModel: providers.json lists no such "provider/model".
	ErrUnknownModel Code = "unknown_model"
	// ErrNoModel: the operation needs a model that is not selected (no
	// model from providers.json, review not independent).
	ErrNoModel Code = "no_model"
	// ErrNotOffered: the model does not list the thinking, service tier or
	// speed token.
	ErrNotOffered Code = "not_offered"
	// ErrNotSupported: a ModelAdapter's NewClient cannot honour the
	// selected service tier or speed (CC9); wrap it with %w.
	ErrNotSupported Code = "not_supported"
)

// Codes of using the host: too early, or with options it cannot honour.
const (
	// ErrNotStarted: the method serves plugins and the host has not been
	// started; call Start first.
	ErrNotStarted Code = "host_not_started"
	// ErrInvalidOptions: New was given an Options field it cannot honour;
	// the message names the field and the values it takes.
	ErrInvalidOptions Code = "invalid_options"
	// ErrUnknownStatusField: EditStatusLine named a field no built-in
	// field or loaded plugin has (add), or one not on the line (remove).
	ErrUnknownStatusField Code = "unknown_status_field"
	// ErrInvalidStatusLine: EditStatusLine was given a verb it does not
	// know, a missing or extra argument, or a name no field may have.
	ErrInvalidStatusLine Code = "invalid_status_line"
	// ErrSkillUnreadable: the skill's SKILL.md could not be read.
	ErrSkillUnreadable Code = "skill_unreadable"
)

// codeError is an error the host builds: what happened, then its code in
// brackets (`… [code]`), the shape of a note. It unwraps to its code and
// to every cause it wraps, so errors.Is finds both.
type codeError struct {
	msg   string
	code  Code
	wraps []error
}

// Error returns the message with its code, unless the message already
// shows it (a wrapped Note ends with its own [Code]).
func (e *codeError) Error() string {
	tag := "[" + string(e.code) + "]"
	if e.code == "" || strings.Contains(e.msg, tag) {
		return e.msg
	}
	return e.msg + " " + tag
}

// Unwrap returns the code, then the causes.
func (e *codeError) Unwrap() []error { return e.wraps }

// codeErrorf returns an error of code whose message is formatted as
// fmt.Errorf does; causes given with %w are wrapped.
func codeErrorf(code Code, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	e := &codeError{msg: err.Error(), code: code, wraps: []error{code}}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		e.wraps = append(e.wraps, u.Unwrap())
	case interface{ Unwrap() []error }:
		e.wraps = append(e.wraps, u.Unwrap()...)
	}
	return e
}

// withCode returns err, its text unchanged, also wrapping codes (an
// operation's ErrNotApplied beside the cause's own code).
func withCode(err error, codes ...Code) error {
	e := &codeError{msg: err.Error(), wraps: []error{err}}
	for _, c := range codes {
		if !errors.Is(err, c) {
			e.wraps = append(e.wraps, c)
		}
	}
	return e
}

// message is err's text without its trailing code, for a note that wraps
// it under a code of its own.
func message(err error) string {
	var e *codeError
	if !errors.As(err, &e) {
		return err.Error()
	}
	msg := e.Error()
	// withCode shows the text of its first wrap: the code shown is that one's.
	for e.code == "" && len(e.wraps) > 0 {
		var inner *codeError
		if !errors.As(e.wraps[0], &inner) {
			break
		}
		e = inner
	}
	return strings.TrimSuffix(msg, " ["+string(e.code)+"]")
}
