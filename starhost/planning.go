package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/contrib"
)

// Tools returns the tools of catalog c that thread may offer the model, as
// one tool planning (MC2, DC5) — the same list Dispatch checks calls
// against and the memory target receives (toolsFor). It is every tool of c
// in catalog order (CC6) plus the tools each tool_provider entry offers for
// this planning — every provider is asked once, with {catalog, thread,
// mode, workspace} (its ctx carries the session view); its tools are
// validated like static ones and join after the plugin tools, before
// external tools, through the same proxies — without the names the
// tool_restriction entries withhold for thread, provided tools included.
// A failing provider is skipped with a note. Keep the snapshot for the
// model call it plans and take a new one for the next. Call a tool of it
// bare with ToolSnapshot.Invoke, or with the host's hooks, policy and
// approval with Dispatch. A host with no threads passes "".
func (h *Host) Tools(ctx context.Context, thread string, c Catalog) *ToolSnapshot {
	return snapshot(h.toolsFor(ctx, thread, contrib.Catalog(c)))
}

// toolsFor is the one list of the tools thread may use in catalog c for
// one planning: the static tools of c, plus the tools the tool_provider
// entries offer for this planning, less every name the tool_restriction
// entries withhold (they are asked with the names of both). Tools,
// Dispatch and the memory target's inputs all take their tools from here,
// so no path offers, runs or describes a tool another withholds.
//
// Without provided tools, the restricted list is captured per thread
// (DC12) until a reload or a change of tool_restriction entries, as
// before; a planning with provided tools asks the restrictions again,
// since the names they decide on are this planning's.
func (h *Host) toolsFor(ctx context.Context, thread string, c contrib.Catalog) *contrib.ToolSnapshot {
	rn := &runNotes{h: h}
	res := rn.resolve(contrib.PointToolProvider, thread)
	var provided []contrib.Output
	if len(res.Entries) > 0 {
		in := map[string]any{"catalog": c.String(), "thread": thread, "mode": h.Session().Facts().Mode, "workspace": h.Session().Facts().Workspace}
		provided, _ = res.Collect(ctx, in, nil)
	}
	if len(provided) == 0 {
		return h.points.tools.get(thread+"\x00"+c.String(), func() (*contrib.ToolSnapshot, bool) {
			snap := h.registry.Tools(c)
			return snap.Without(h.withheld(ctx, thread, snap)), ctx.Err() == nil
		})
	}
	snap := h.registry.Tools(c)
	for _, o := range provided {
		tools, _ := o.Value.([]contrib.Tool)
		snap = snap.With(o.Entry.Origin, o.Entry.Generation, tools, c, h.note)
	}
	return snap.Without(h.withheld(ctx, thread, snap))
}

// withheld asks the tool_restriction entries of thread which of snap's
// tools to withhold.
func (h *Host) withheld(ctx context.Context, thread string, snap *contrib.ToolSnapshot) []string {
	rn := &runNotes{h: h}
	res := rn.resolve(contrib.PointToolRestriction, thread)
	if len(res.Entries) == 0 {
		return nil
	}
	names := []any{}
	for _, t := range snap.List() {
		names = append(names, t.Name)
	}
	outs, _ := res.Collect(ctx, map[string]any{"thread": thread, "mode": h.Session().Facts().Mode, "tools": names}, textsAnswer)
	var withheld []string
	for _, o := range outs {
		withheld = append(withheld, o.Value.([]string)...)
	}
	return withheld
}
