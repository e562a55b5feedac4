package contrib

import "fmt"

// A tool whose plugin faulted leaves the catalog with its generation; a
// caller that still names it should hear why, not unknown_tool. The
// registry remembers which plugin's revoked generation last contributed
// each tool name, and asks RegistryOptions.Unavailable whether that plugin
// is out of service now.

// recordDeparted remembers the tools of p, whose generation is being
// revoked. r.mu is held.
func (r *Registry) recordDeparted(p *Published) {
	if r.opts.Unavailable == nil {
		return
	}
	if r.departed == nil {
		r.departed = map[string]string{}
	}
	for i := range p.Set.Tools {
		r.departed[fold(p.Set.Tools[i].Name)] = p.Plugin
	}
}

// RecordDeclared remembers names as the tools of plugin, which faulted
// before it ever published (its first activation failed), so a call naming
// one hears why (tool_unavailable with the reason) rather than
// unknown_tool, as for a plugin that had been active. A name a serving
// plugin offers is never answered from here: only a miss looks.
func (r *Registry) RecordDeclared(plugin string, names []string) {
	if r.opts.Unavailable == nil || len(names) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.departed == nil {
		r.departed = map[string]string{}
	}
	for _, n := range names {
		r.departed[fold(n)] = plugin
	}
}

// unknownTool is the failure of a call naming no tool of the snapshot:
// tool_unavailable with the reason when the name belonged to a plugin that
// is out of service (faulted), else unknown_tool.
func (r *Registry) unknownTool(name string) Result {
	if r != nil && r.opts.Unavailable != nil {
		r.mu.Lock()
		plugin := r.departed[fold(name)]
		r.mu.Unlock()
		if plugin != "" {
			if why := r.opts.Unavailable(plugin); why != "" {
				return Failure(ErrToolUnavailable, fmt.Sprintf("tool %q: %s", name, why))
			}
		}
	}
	return Failure(ErrUnknownTool, fmt.Sprintf("no tool named %q in this snapshot", name))
}
