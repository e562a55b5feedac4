package starhost

import (
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
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
	switch e.Kind {
	case "stopped", "blocked", "faulted":
		if e.Kind != "stopped" || h.manager.Generation(e.Plugin) == "" {
			h.board.Withdraw(e.Plugin)
		}
	}
	if h.opts.Events != nil {
		h.opts.Events(e)
	}
}

// StatusFields lists every status field, built-in and plugin, with its
// description and availability (CC16: listing places nothing on the line).
func (h *Host) StatusFields() []statusline.FieldInfo { return h.board.Fields() }
