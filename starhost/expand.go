package starhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// Errors of Expand.
var (
	// ErrBuiltinCommand: the name is one of the embedder's built-in verbs,
	// which always win (CC11); the embedder handles it.
	ErrBuiltinCommand = errors.New("built-in command")
	// ErrUnknownCommand: no markdown or plugin command has the name.
	ErrUnknownCommand = errors.New("unknown command")
	// ErrCancelled: the caller's context had ended, so no plugin code ran
	// (or it was stopped). The error also wraps the context's cause, so
	// errors.Is(err, context.Canceled) and context.DeadlineExceeded work.
	ErrCancelled = errors.New("cancelled")
)

// cancelled returns the ErrCancelled error of a context that ended.
func cancelled(ctx context.Context) error {
	return fmt.Errorf("%w: %w", ErrCancelled, context.Cause(ctx))
}

// Expand produces this turn's input for /name args (CC11, DC8). Resolution:
// the embedder's built-in verbs (ErrBuiltinCommand), then workspace markdown
// commands (.crystal/commands/NAME.md with $ARGUMENTS substituted), then
// plugin commands by ascending order, load order and registration order.
// A plugin command returning None passes to the next; ok is false when every
// candidate passed. A failing command is a note and passes too. When ctx
// has already ended, nothing runs and the error is ErrCancelled.
func (h *Host) Expand(ctx context.Context, name, args string) (text string, ok bool, err error) {
	name = strings.TrimPrefix(name, "/")
	if ctx.Err() != nil {
		return "", false, fmt.Errorf("/%s: %w", name, cancelled(ctx))
	}
	if slices.ContainsFunc(h.opts.BuiltinCommands, func(b string) bool { return strings.EqualFold(b, name) }) {
		return "", false, ErrBuiltinCommand
	}
	if body, found := h.markdownCommand(name); found {
		return strings.ReplaceAll(body, "$ARGUMENTS", args), true, nil
	}
	cands := h.registry.View().Commands(name)
	if len(cands) == 0 {
		return "", false, fmt.Errorf("/%s: %w", name, ErrUnknownCommand)
	}
	inv := contrib.Invocation{Name: name, Args: args}
	for _, c := range cands {
		gate := h.registry.View().Gate(c.Plugin, c.Generation)
		if gate == nil {
			continue // DC8: released handles disappear at once
		}
		var out string
		var produced bool
		gate.Do(ctx, func(ctx context.Context) {
			var err error
			out, produced, err = c.Command.Run(ctx, inv)
			if err != nil {
				d := builtins.FailureDiagnostic(err)
				d.Message += "; /" + name + " passes to the next command"
				h.Note(d)
			}
		})
		if produced {
			return out, true, nil
		}
	}
	if ctx.Err() != nil {
		return "", false, fmt.Errorf("/%s: %w", name, cancelled(ctx))
	}
	return "", false, nil
}

// markdownCommand reads <workspace>/.crystal/commands/NAME.md, which shadows
// plugin commands of the same name (DC8). It is read on every call.
func (h *Host) markdownCommand(name string) (string, bool) {
	if contrib.ToolNameProblem(name) != "" {
		return "", false
	}
	dir := filepath.Join(h.opts.Workspace, ".crystal", "commands")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		if base, isMD := strings.CutSuffix(e.Name(), ".md"); isMD && strings.EqualFold(base, name) {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			return string(data), err == nil
		}
	}
	return "", false
}

// CommandInfo lists one command available to /name.
type CommandInfo struct {
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases"`
	Description string   `json:"description"`
	Plugin      string   `json:"plugin"`
	Source      string   `json:"source"` // "plugin" or "markdown"
}

// Commands lists markdown and plugin commands (DC8: listed wherever the host
// lists commands).
func (h *Host) Commands() []CommandInfo {
	var out []CommandInfo
	matches, _ := filepath.Glob(filepath.Join(h.opts.Workspace, ".crystal", "commands", "*.md"))
	for _, m := range matches {
		out = append(out, CommandInfo{Name: strings.TrimSuffix(filepath.Base(m), ".md"), Aliases: []string{}, Source: "markdown"})
	}
	for _, c := range h.registry.View().AllCommands() {
		out = append(out, CommandInfo{Name: c.Command.Name, Aliases: append([]string{}, c.Command.Aliases...),
			Description: c.Command.Description, Plugin: c.Plugin, Source: "plugin"})
	}
	return out
}
