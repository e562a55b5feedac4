package starhost

import (
	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// The services (services.go) the lifecycle hands to plugin code carry
// the host's effects credited to a plugin (notes, runtime point entries,
// status text, data directories, ctx.env, timers). It is unexported so an
// embedder holding a *Host cannot create entries or status text in a
// plugin's name; only plugin code reaches these methods, through builtins.
// This file holds those effects; services.go the facts, the model
// plumbing, the clock and ctx.env.

// The capabilities builtins asks the host for, checked at compile time.
var (
	_ builtins.DataSource     = services{}
	_ builtins.PointRegistrar = services{}
	_ builtins.StatusSource   = services{}
)

// Note delivers a plugin's note to Options.Notes, redacted.
func (s services) Note(n contrib.Diagnostic) { s.h.note(n) }

// DataDirs returns a plugin's data directories (CC29), or why it gets
// none (data.go).
func (s services) DataDirs(plugin, directory string, source contrib.Source) (global, project string, refused *contrib.Diagnostic) {
	return s.h.dataDirs(plugin, directory, source)
}

// AddEntry adds a runtime entry for ctx.contributions (DC11).
func (s services) AddEntry(plugin, gen string, e contrib.PointEntry) (*contrib.Handle, error) {
	return s.h.registry.AddEntry(plugin, gen, e)
}

// ReleaseEntry releases a runtime entry of plugin by its handle id.
func (s services) ReleaseEntry(plugin, id string) bool { return s.h.registry.ReleaseEntry(plugin, id) }

// StatusSink returns the status sink of one generation (CC17, status.go).
func (s services) StatusSink(plugin, generation string) builtins.StatusSink {
	return s.h.statusSink(plugin, generation)
}
