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
