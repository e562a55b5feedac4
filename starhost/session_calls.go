package starhost

import (
	"context"
	"encoding/json"

	"github.com/crystal-star/crystal-star/statusline"
)

// The session's calls that are not a thread's: commands, hooks a host
// drives itself, classification, template binding, the welcome texts and
// the session's status line.

// StatusLine returns the operator's line as this session sees it: the
// fields placed with status_line (config) or /statusline, in that order,
// with built-in texts from Options.BuiltinStatus; fields with no text, or
// whose plugin is not loaded, are skipped (CC16). A field shows the value a
// callback set while serving this session, else the host-wide value one set
// where no session was served (a timer, attach); values set while serving
// another session never show here.
func (s *Session) StatusLine() string {
	return s.h.board.RenderWith(s.h.statusLineConfig(), &s.status, s.h.builtinStatusText)
}

// RenderStatusLine draws the fields named, in that order, the way
// StatusLine draws the operator's line, with this session's values. An
// embedder that shows more than the saved line (the dev console adds the
// fields of the plugins under development) renders its own with it.
func (s *Session) RenderStatusLine(names []string) string {
	return s.h.board.RenderWith(statusline.Line{Names: names}, &s.status, s.h.builtinStatusText)
}

// ForModel adapts a tool result to this session's model before it goes
// into a model request (MC1): a model that takes no image input gets no
// image parts, one without declared audio input no audio parts; the text
// parts and resources stay. What was dropped is reported in one note (nil
// when nothing was). Dispatch applies it; an embedder calling
// ToolSnapshot.Invoke directly calls it before building the request.
func (s *Session) ForModel(res ToolResult, tool string) (ToolResult, *Note) {
	if len(res.Parts) == 0 {
		return res, nil
	}
	out, d, dropped := s.h.forModel(s.bind(context.Background()), toResult(res), tool)
	if !dropped {
		return res, nil
	}
	note := noteOf(d)
	return fromResult(out), &note
}

// Bind replaces each {{name}} token in template (CC12, CC13). Host-owned
// names come from the current facts; plugin placeholders are resolved on
// every call, never cached. A result is inserted verbatim: tokens inside it
// are not expanded again. A failing resolve, or one that returns nothing,
// leaves the original token in place and records an English note. Unknown
// tokens stay as they are. Once ctx has ended no plugin code runs: plugin
// tokens stay in place (host-owned names are still bound).
func (s *Session) Bind(ctx context.Context, template string, site Site) string {
	return s.h.bind(s.bind(ctx), template, site)
}

// Classify assigns risk and permission to one call of tool (CC10). The
// host's built-in classification (Options.Classifications) answers first;
// only when it misses are plugin classifiers asked, in catalog load order,
// the first non-None answer winning. A built-in tool name
// (Options.BuiltinTools) is never sent to a classifier, so plugins cannot
// reclassify read, bash or any other built-in tool. A failing classifier
// is a note and the next one is asked. args is the call's JSON arguments
// ("" or null for none); the error, wrapping ErrInvalidArguments, is only
// for args that are not JSON.
func (s *Session) Classify(ctx context.Context, tool string, args json.RawMessage) (Classified, error) {
	return s.h.classify(s.bind(ctx), tool, args)
}

// ExecuteCommand runs /name args by the resolution of Expand and says which
// command produced the input: the command/execute surface (MC6) beside the
// Commands listing. Errors are those of Expand.
func (s *Session) ExecuteCommand(ctx context.Context, name, args string) (CommandResult, error) {
	return s.h.executeCommand(s.bind(ctx), name, args)
}

// Expand produces this turn's input for /name args (CC11, DC8). Resolution:
// the embedder's built-in verbs (ErrBuiltinCommand), then workspace markdown
// commands (.crystal/commands/NAME.md with $ARGUMENTS substituted), then
// plugin commands by ascending order, load order and registration order.
// A plugin command returning None passes to the next; ok is false when every
// candidate passed. A failing command is a note and passes too. When ctx
// has already ended, nothing runs and the error is ErrCancelled; before
// Start it is ErrNotStarted.
func (s *Session) Expand(ctx context.Context, name, args string) (text string, ok bool, err error) {
	return s.h.expand(s.bind(ctx), name, args)
}

// RunHook runs the hooks of the event name ("user_message", "approval", …,
// the hook table of docs/points.md) on payload (HK1–HK3): plugin hooks in
// load order, each seeing the previous one's replacement, then the raw hooks
// of that stage (rebuild_model after transform_model, rewrite_prompt after
// prompt, rewrite_compaction after compaction, rewrite_approval after
// approval). A hook that fails, or whose replacement exceeds the event's
// powers, is skipped with a note. payload is not modified; its values are
// JSON-like (map[string]any, []any, string, bool, float64 or json.Number,
// nil). Dispatch, AssemblePrompt, PrepareModelCall, Compact and the turn
// methods run their own stages; RunHook is for the others and for hosts
// that drive a stage themselves. When ctx has already ended no hook runs
// and the error is ErrCancelled; before Start none runs and the error is
// ErrNotStarted. The other moments of this file run no
// plugin code either once ctx has ended (they leave their input as it is).
func (s *Session) RunHook(ctx context.Context, name string, payload map[string]any) (HookResult, error) {
	return s.h.runHook(s.bind(ctx), name, payload)
}

// Welcome returns the welcome suggestions: the host's
// (Options.Points.Welcome) or those of the plugin entry that replaced them.
func (s *Session) Welcome(ctx context.Context) []string {
	return s.h.welcome(s.bind(ctx))
}
