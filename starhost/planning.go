package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/contrib"
)

// Tools returns the tools of catalog c that thread may offer the model, as
// one tool planning (MC2, DC5) — the same snapshot Dispatch checks calls
// against. It is every tool of c in catalog order (CC6), without the names
// the tool_restriction entries withhold for thread (that part is captured
// per thread, DC12, until a reload or a change of those entries), plus the
// tools each tool_provider entry offers for this planning: every provider
// is asked once, with {catalog, thread, mode, workspace} (its ctx carries
// the session view); its tools are validated like static ones and join
// after the plugin tools, before external tools, through the same proxies.
// A failing provider is skipped with a note. Keep the snapshot for the
// model call it plans and take a new one for the next. Call a tool of it
// bare with ToolSnapshot.Invoke, or with the host's hooks, policy and
// approval with Dispatch. A host with no threads passes "".
func (h *Host) Tools(ctx context.Context, thread string, c Catalog) *ToolSnapshot {
	return snapshot(h.planTools(ctx, thread, contrib.Catalog(c)))
}

// planTools is Tools on the registry's snapshot.
func (h *Host) planTools(ctx context.Context, thread string, c contrib.Catalog) *contrib.ToolSnapshot {
	snap := h.threadTools(ctx, thread, c)
	rn := &runNotes{h: h}
	res := rn.resolve(contrib.PointToolProvider, thread)
	if len(res.Entries) == 0 {
		return snap
	}
	in := map[string]any{"catalog": c.String(), "thread": thread, "mode": h.Session().Facts().Mode, "workspace": h.Session().Facts().Workspace}
	outs, _ := res.Collect(ctx, in, nil)
	for _, o := range outs {
		tools, _ := o.Value.([]contrib.Tool)
		snap = snap.With(o.Entry.Origin, o.Entry.Generation, tools, c, h.note)
	}
	return snap
}
