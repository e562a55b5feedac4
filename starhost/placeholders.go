package starhost

import "slices"

// PlaceholderNames lists the {{name}}s Bind resolves now, for completion:
// the host's own (Options.HostPlaceholders) first, then each plugin
// placeholder that owns its name (CC12: the first in load order), in load
// order. Safe for concurrent use.
func (h *Host) PlaceholderNames() []string {
	out := slices.Clone(h.opts.HostPlaceholders)
	view := h.registry.View()
	for _, p := range view.Published() {
		for _, ph := range p.Set.Placeholders {
			if e, ok := view.Placeholder(ph.Name); ok && e.Plugin == p.Plugin && !slices.Contains(out, ph.Name) {
				out = append(out, ph.Name)
			}
		}
	}
	return out
}
