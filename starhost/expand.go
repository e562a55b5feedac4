package starhost

import (
	"context"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// cancelled returns the ErrCancelled error of a context that ended.
func cancelled(ctx context.Context) error {
	return codeErrorf(ErrCancelled, "the context ended: %w", context.Cause(ctx))
}

// Expand produces this turn's input for /name args (CC11, DC8). Resolution:
// the embedder's built-in verbs (ErrBuiltinCommand), then workspace markdown
// commands (.crystal/commands/NAME.md with $ARGUMENTS substituted), then
// plugin commands by ascending order, load order and registration order.
// A plugin command returning None passes to the next; ok is false when every
// candidate passed. A failing command is a note and passes too. When ctx
// has already ended, nothing runs and the error is ErrCancelled; before
// Start it is ErrNotStarted.
func (h *Host) Expand(ctx context.Context, name, args string) (text string, ok bool, err error) {
	r, err := h.ExecuteCommand(ctx, name, args)
	return r.Input, r.Produced, err
}

// CommandResult is what executing one command by name produced: this
// turn's input, or Produced false when every candidate passed, and which
// command produced it.
type CommandResult struct {
	Input    string        `json:"input"`
	Produced bool          `json:"produced"`
	Origin   CommandOrigin `json:"origin"` // "markdown" or "plugin"; "" when none produced
	Plugin   string        `json:"plugin"` // the producing plugin, for origin plugin
	// Parts are the content parts of a command that returned image(...),
	// resource(...) or a list mixing them with strings, in order; Input is
	// then its text parts joined by newlines. An MCP prompt passes them on
	// as image and embedded-resource messages; a text-only host uses Input.
	Parts []ContentPart `json:"parts,omitempty"`
}

// ExecuteCommand runs /name args by the resolution of Expand and says which
// command produced the input: the command/execute surface (MC6) beside the
// Commands listing. Errors are those of Expand.
func (h *Host) ExecuteCommand(ctx context.Context, name, args string) (CommandResult, error) {
	name = strings.TrimPrefix(name, "/")
	if err := h.serving("/" + name); err != nil {
		return CommandResult{}, err
	}
	if ctx.Err() != nil {
		return CommandResult{}, codeErrorf(ErrCancelled, "/%s: %w", name, cancelled(ctx))
	}
	if h.isBuiltinCommand(name) {
		return CommandResult{}, codeErrorf(ErrBuiltinCommand, "/%s is a built-in command; the host runs it", name)
	}
	if md, found := h.markdownCommand(name); found {
		return CommandResult{Input: strings.ReplaceAll(md.body, "$ARGUMENTS", args), Produced: true, Origin: OriginMarkdown}, nil
	}
	cands := h.registry.View().Commands(name)
	if len(cands) == 0 {
		return CommandResult{}, codeErrorf(ErrUnknownCommand, "/%s: unknown command", name)
	}
	inv := contrib.Invocation{Name: name, Args: args}
	for _, c := range cands {
		gate := h.registry.View().Gate(c.Plugin, c.Generation)
		if gate == nil {
			continue // DC8: released handles disappear at once
		}
		var out string
		var produced bool
		var parts []ContentPart
		gate.Do(ctx, func(ctx context.Context) {
			var err error
			ctx = contrib.WithPartsSink(ctx, func(ps []contrib.Part) {
				parts = make([]ContentPart, len(ps))
				for i, p := range ps {
					parts[i] = partOf(p)
				}
			})
			out, produced, err = c.Command.Run(ctx, inv)
			if err != nil {
				d := builtins.FailureDiagnostic(err)
				d.Message += "; /" + name + " passes to the next command"
				h.note(d)
			}
		})
		if produced {
			return CommandResult{Input: out, Produced: true, Origin: OriginPlugin, Plugin: c.Plugin, Parts: parts}, nil
		}
	}
	if ctx.Err() != nil {
		return CommandResult{}, codeErrorf(ErrCancelled, "/%s: %w", name, cancelled(ctx))
	}
	return CommandResult{}, nil
}

func (h *Host) isBuiltinCommand(name string) bool {
	return slices.ContainsFunc(h.opts.BuiltinCommands, func(b string) bool { return strings.EqualFold(b, name) })
}

// markdownCommand reads <workspace>/.crystal/commands/NAME.md, which shadows
// plugin commands of the same name (DC8). It is read on every call.
func (h *Host) markdownCommand(name string) (markdownCmd, bool) {
	if contrib.CheckToolName(name) != nil {
		return markdownCmd{}, false
	}
	for _, md := range h.markdownCommands() {
		if strings.EqualFold(md.name, name) {
			return md, true
		}
	}
	return markdownCmd{}, false
}
