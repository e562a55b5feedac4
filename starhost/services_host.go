// The host's other services for builtins (notes, status sinks, runtime
// point entries, data directories). Owned by the Host surface's work
// (h12host): this file only forwards so that services is a complete
// contrib.Services on this branch.

package starhost

import (
	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

var (
	_ builtins.StatusSource   = services{}
	_ builtins.PointRegistrar = services{}
	_ builtins.DataSource     = services{}
)

// Note implements contrib.Services.
func (s services) Note(n contrib.Diagnostic) { s.h.Note(n) }

// StatusSink implements builtins.StatusSource.
func (s services) StatusSink(plugin, generation string) builtins.StatusSink {
	return s.h.StatusSink(plugin, generation)
}

// AddEntry implements builtins.PointRegistrar.
func (s services) AddEntry(plugin, gen string, e contrib.PointEntry) (*contrib.Handle, error) {
	return s.h.AddEntry(plugin, gen, e)
}

// ReleaseEntry implements builtins.PointRegistrar.
func (s services) ReleaseEntry(plugin, id string) bool { return s.h.ReleaseEntry(plugin, id) }

// DataDirs implements builtins.DataSource.
func (s services) DataDirs(plugin, directory string) (global, project string) {
	return s.h.DataDirs(plugin, directory)
}
