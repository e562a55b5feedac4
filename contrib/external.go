package contrib

import "slices"

// externalEntries projects external tools (and the skill tool, last) into
// catalog entries. A tool whose name breaks CC5 or whose parameters do not
// compile is left out with a note. The skill tool is the host's (CC6): an
// external tool of that name — every crystal-star started as a tool set
// used to export one — is left out, although the skill tool comes last.
func (r *Registry) externalEntries(tools []ExternalTool) []toolEntry {
	var out []toolEntry
	skill := optionalTool(r.opts.Skill)
	for i, x := range append(slices.Clone(tools), skill...) {
		if len(skill) > 0 && i < len(tools) && fold(x.Name) == fold(skill[0].Name) {
			r.note(Diag(ExternalToolShadowed, "", Pos{}, "external tool %q of tool set %q has the name of the host's %s tool; the external tool is left out", x.Name, x.ToolSet, skill[0].Name))
			continue
		}
		if err := CheckToolName(x.Name); err != nil {
			r.note(Diag(ToolNameInvalid, "", Pos{}, "external tool %q of tool set %q: the name %v; it is left out", x.Name, x.ToolSet, err))
			continue
		}
		sch, err := CompileSchema(x.Parameters)
		if err != nil {
			r.note(Diag(ToolSchemaInvalid, "", Pos{}, "external tool %q has invalid parameters: %v; it is left out", x.Name, err))
			continue
		}
		out = append(out, toolEntry{
			Name: x.Name, ToolSet: x.ToolSet, Description: x.Description, Catalogs: x.Catalogs,
			Parameters: x.Parameters, schema: sch, run: x.Run, external: true, ReadOnly: x.ReadOnly,
			Namespace: x.ToolSet, RequiresApproval: approvalRequired(x.ReadOnly, x.RequiresApproval), Multimodal: x.Multimodal,
		})
	}
	return out
}

// SetExternal replaces the external tools (MC7: a tool set started, reloaded
// or stopped) in one step: the view is rebuilt in catalog order (CC6) — an
// external tool named like a plugin tool is left out with a note — and
// every subscriber is told (DC12). Snapshots taken before keep the tools
// they had.
func (r *Registry) SetExternal(tools []ExternalTool) {
	entries := r.externalEntries(tools)
	r.mu.Lock()
	r.external = entries
	r.rebuild()
	r.mu.Unlock()
	r.invalidate(Invalidation{})
}
