package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/contrib"
)

// tools is Thread.Tools's work for thread.
func (h *Host) tools(ctx context.Context, thread string, c Catalog) *ToolSnapshot {
	return &ToolSnapshot{snap: h.toolsFor(ctx, thread, contrib.Catalog(c)), session: h.sessionOf(ctx)}
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
		in := map[string]any{"catalog": c.String(), "thread": thread, "mode": h.factsOf(ctx).Mode, "workspace": h.factsOf(ctx).Workspace}
		provided, _ = res.Collect(ctx, in, nil)
	}
	if len(provided) == 0 {
		return h.staticTools(ctx, thread, c, rn)
	}
	restrictions := rn.resolve(contrib.PointToolRestriction, thread)
	if len(restrictions.Entries) == 0 {
		return withProvided(h.staticTools(ctx, thread, c, rn), provided, c, h.note)
	}
	snap := withProvided(h.registry.Tools(c), provided, c, h.note)
	return snap.Without(withheld(ctx, thread, h.factsOf(ctx).Mode, restrictions, snap))
}

// staticTools is the static tools of c less those the restrictions
// withhold, as captured for thread.
func (h *Host) staticTools(ctx context.Context, thread string, c contrib.Catalog, rn *runNotes) *contrib.ToolSnapshot {
	return h.points.tools.get(thread+h.sessionOf(ctx).tag+"\x00"+c.String(), func() (*contrib.ToolSnapshot, bool) {
		snap := h.registry.Tools(c)
		res := rn.resolve(contrib.PointToolRestriction, thread)
		return snap.Without(withheld(ctx, thread, h.factsOf(ctx).Mode, res, snap)), ctx.Err() == nil
	})
}

// withProvided is snap plus the tools of the tool_provider answers outs.
func withProvided(snap *contrib.ToolSnapshot, outs []contrib.Output, c contrib.Catalog, note func(contrib.Diagnostic)) *contrib.ToolSnapshot {
	for _, o := range outs {
		tools, _ := o.Value.([]contrib.Tool)
		snap = snap.With(o.Entry.Origin, o.Entry.Generation, tools, c, note)
	}
	return snap
}

// withheld asks the tool_restriction entries res of thread which of snap's
// tools to withhold.
func withheld(ctx context.Context, thread, mode string, res *contrib.Resolution, snap *contrib.ToolSnapshot) []string {
	if len(res.Entries) == 0 {
		return nil
	}
	names := []any{}
	for _, t := range snap.List() {
		names = append(names, t.Name)
	}
	outs, _ := res.Collect(ctx, map[string]any{"thread": thread, "mode": mode, "tools": names}, textsAnswer)
	var out []string
	for _, o := range outs {
		out = append(out, o.Value.([]string)...)
	}
	return out
}
