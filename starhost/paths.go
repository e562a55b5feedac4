package starhost

import "github.com/crystal-star/crystal-star/internal/layout"

// paths are the host's on-disk places (internal/layout owns their names).
func (h *Host) paths() layout.Paths {
	return layout.Paths{Home: h.opts.Home, Workspace: h.opts.Workspace}
}
