package starhost

import (
	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// services is what the lifecycle hands to plugin code as contrib.Services:
// the host's effects credited to a plugin (notes, runtime point entries,
// status text, data directories, ctx.env, timers). It is unexported so an
// embedder holding a *Host cannot create entries or status text in a
// plugin's name; only plugin code reaches these methods, through builtins.
//
// The model plumbing (ModelClient, ModelEpoch, Session, Review) lives on the
// same type in services.go.
type services struct{ h *Host }

// The capabilities builtins asks the host for, checked at compile time.
var (
	_ contrib.Services           = services{}
	_ builtins.DataSource        = services{}
	_ builtins.EnvironmentSource = services{}
	_ builtins.PointRegistrar    = services{}
	_ builtins.StatusSource      = services{}
	_ builtins.ClockSource       = services{}
)

// Note delivers a plugin's note to Options.Notes, redacted.
func (s services) Note(n contrib.Diagnostic) { s.h.note(n) }

// Facts returns the host facts a callback's ctx carries (CC7).
func (s services) Facts() contrib.Facts { return s.h.Facts() }

// DataDirs returns a plugin's data directories (CC29, data.go).
func (s services) DataDirs(plugin, directory string) (global, project string) {
	return s.h.dataDirs(plugin, directory)
}

// Environment returns what plugins see on ctx.env (CC19, env.go).
func (s services) Environment() *builtins.Environment { return s.h.environment() }

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

// TimerClock returns Options.Clock, nil for the real clock.
func (s services) TimerClock() builtins.Clock { return s.h.opts.Clock }
