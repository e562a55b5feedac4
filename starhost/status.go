package starhost

import (
	"errors"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
	"github.com/crystal-star/crystal-star/statusline"
)

// newBoard returns the host's status board with the embedder's built-in
// fields.
func newBoard(builtin []string) *statusline.Board {
	fields := make([]statusline.BuiltinField, len(builtin))
	for i, name := range builtin {
		fields[i] = statusline.BuiltinField{Name: name}
	}
	return statusline.NewBoard(fields)
}

// admitStatusFields declares a generation's status fields on the board
// (CC15): illegal tokens, reserved words, built-in names and names an
// earlier plugin holds are left out with a diagnostic at the
// status_field(...) call.
func (h *Host) admitStatusFields(plugin string, set *contrib.Set) []contrib.Diagnostic {
	decls := make([]statusline.FieldDecl, len(set.StatusFields))
	for i, f := range set.StatusFields {
		decls[i] = statusline.FieldDecl{Name: f.Name, Description: f.Description}
	}
	_, rejected := h.board.Declare(plugin, decls)
	var diags []contrib.Diagnostic
	for _, r := range rejected {
		diags = append(diags, contrib.Diag(contrib.StatusFieldRejected, plugin, set.StatusFields[r.Index].Pos,
			"%v; the field is left out", r.Err))
	}
	return diags
}

// lifecycleEvent keeps host-side state in step with the lifecycle.
func (h *Host) lifecycleEvent(e lifecycle.Event) {
	h.modelsEvent(eventOf(e))
	switch e.Kind {
	case "stopped", "blocked", "faulted":
		if e.Kind != "stopped" || h.manager.Generation(e.Plugin) == "" {
			h.board.Withdraw(e.Plugin)
		} else if gen := h.manager.Generation(e.Plugin); gen != e.Generation {
			// A replaced generation finished draining (Reload returned
			// when its successor began to serve).
			h.publish(Change{Retired: e.Plugin + "@" + e.Generation, Generation: h.changes.generation.Load()})
		}
	}
	if h.opts.Events != nil {
		h.opts.Events(eventOf(e))
	}
}

// StatusFields lists every status field, built-in and plugin, with its
// description and availability (CC16: listing places nothing on the line).
func (h *Host) StatusFields() []StatusField {
	return sandbox.ConvertAll(h.board.Fields(), statusFieldOf)
}

// statusSink returns the status sink of one generation (CC17): created on
// first use with the plugin's accepted fields, or nil when none was
// accepted. A new generation's sink retires the previous one.
func (h *Host) statusSink(plugin, generation string) builtins.StatusSink {
	var names []string
	for _, f := range h.board.Fields() {
		if f.Plugin == plugin {
			names = append(names, f.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	h.sinkMu.Lock()
	defer h.sinkMu.Unlock()
	if s, ok := h.sinks[plugin]; ok && s.String() == plugin+"@"+generation {
		return s
	}
	s := h.board.NewSink(plugin, generation, names, func(msg string) {
		h.note(contrib.Diagnostic{Code: contrib.StatusFieldUnknown, Severity: contrib.SeverityWarning, Plugin: plugin, Message: msg})
	})
	if h.sinks == nil {
		h.sinks = map[string]*statusline.Sink{}
	}
	h.sinks[plugin] = s
	return s
}

// StatusView returns the /statusline listing: every field with its
// description, whether it is on the line, and unavailable saved names.
func (h *Host) StatusView() []StatusRow {
	return sandbox.ConvertAll(h.board.View(h.statusLineConfig()), statusRowOf)
}

func (h *Host) statusLineConfig() statusline.Line {
	c := h.Config()
	return statusline.Line{Off: c.StatusLineOff, Names: c.StatusLine}
}

func (h *Host) builtinStatusText(name string) string {
	if h.opts.BuiltinStatus == nil {
		return ""
	}
	return h.opts.BuiltinStatus(name)
}

// EditStatusLine runs one edit of the operator's line (add NAME, remove
// NAME, on, off, reset) and persists the line atomically in the home
// config.toml. It reports whether anything changed. A name no built-in
// field or loaded plugin has (add), or one not on the line (remove), is
// ErrUnknownStatusField; an unknown verb, a missing or extra argument or a
// name no field may have is ErrInvalidStatusLine; a config.toml that cannot
// be read or written is ErrNotApplied.
func (h *Host) EditStatusLine(verb, arg string) (bool, error) {
	line, changed, err := h.statusLineConfig().Apply(verb, arg, h.board.Known)
	if err != nil {
		code := ErrInvalidStatusLine
		if errors.Is(err, statusline.ErrUnknownField) {
			code = ErrUnknownStatusField
		}
		return false, codeErrorf(code, "%v", err)
	}
	if !changed {
		return false, nil
	}
	_, err = h.editConfig(false, func(doc map[string]any) bool {
		doc["status_line"] = line.Names
		if line.Off {
			doc["status_line_off"] = true
		} else {
			delete(doc, "status_line_off")
		}
		return true
	})
	return err == nil, err
}

// TerminalSafe makes plugin-supplied text (descriptions, display names,
// error messages, notes, print output, backtraces) safe to write to a
// terminal: control characters, escape sequences and bidi controls are shown
// escaped (`\x1b`, `\u202e`), newlines and tabs kept.
// JSON output needs none of it.
func TerminalSafe(text string) string { return statusline.Terminal(text) }
