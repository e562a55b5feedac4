package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/contrib"
)

// PlanTools is one tool planning of thread for catalog c (MC2, DC5): the
// thread's tools (ThreadTools) plus the tools each tool_provider entry
// offers for this planning. Every provider is asked once, with the planning
// context {catalog, thread, mode, workspace} (its ctx carries the session
// view); its tools are validated like static ones and join the snapshot
// after the plugin tools, before external tools (CC6), through the same
// proxies — a call after a reload or revocation answers tool_unavailable.
// The returned snapshot is the planning's cache: keep it for the model call
// it plans and take a new one for the next. A failing provider is skipped
// with a note. Static tools remain the common case: with no provider this
// is ThreadTools.
func (h *Host) PlanTools(ctx context.Context, thread string, c Catalog) *ToolSnapshot {
	snap := h.ThreadTools(ctx, thread, c)
	rn := &runNotes{h: h}
	res := rn.resolve(contrib.PointToolProvider, thread)
	if len(res.Entries) == 0 {
		return snap
	}
	in := map[string]any{"catalog": c.String(), "thread": thread, "mode": h.Facts().Mode, "workspace": h.Facts().Workspace}
	outs, _ := res.Collect(ctx, in, nil)
	for _, o := range outs {
		tools, _ := o.Value.([]contrib.Tool)
		snap = snap.With(o.Entry.Origin, o.Entry.Generation, tools, c, h.note)
	}
	return snap
}
