package contrib

import "slices"

// Per-planning tools (MC2, DC5). A tool_provider entry is asked once per
// tool planning and answers the tools valid for that planning. They are
// validated like static tools (by a Staging, in builtins) and join the
// planning's snapshot through the same proxies: an entry holds the plugin
// id, the generation and the implementation, and every call re-resolves the
// generation, so a reload or revocation answers tool_unavailable. The
// snapshot is the cache: it lives as long as the planning that made it.

// With returns s plus the tools plugin's generation gen provided for this
// planning, those listed in catalog c, after the plugin tools and before
// the external ones (CC6). A tool whose name the snapshot already has is
// left out with a ToolNameTaken note: static and earlier tools win.
func (s *ToolSnapshot) With(plugin, gen string, tools []Tool, c Catalog, note func(Diagnostic)) *ToolSnapshot {
	out := &ToolSnapshot{reg: s.reg, byName: map[string]int{}}
	at := slices.IndexFunc(s.tools, func(t toolEntry) bool { return t.external })
	if at < 0 {
		at = len(s.tools)
	}
	out.tools = append(out.tools, s.tools[:at]...)
	taken := map[string]bool{}
	for _, t := range s.tools {
		taken[fold(t.Name)] = true
	}
	for _, t := range tools {
		if t.Catalogs&c == 0 {
			continue
		}
		if taken[fold(t.Name)] {
			if note != nil {
				note(Diag(ToolNameTaken, plugin, t.Pos, "provided tool %q has the name of a tool already in this planning; it is left out", t.Name))
			}
			continue
		}
		taken[fold(t.Name)] = true
		out.tools = append(out.tools, toolEntry{Name: t.Name, Plugin: plugin, Generation: gen, Description: t.Description,
			Catalogs: t.Catalogs, Parameters: t.Parameters, ReadOnly: t.ReadOnly, schema: t.schema, run: t.Run, form: ArgsFormOf(t.Run), index: -1,
			Namespace: cmpOr(t.Namespace, plugin), RequiresApproval: approvalRequired(t.ReadOnly, t.RequiresApproval),
			Multimodal: t.Multimodal})
	}
	out.tools = append(out.tools, s.tools[at:]...)
	for i, t := range out.tools {
		out.byName[t.Name] = i
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
