// Package hostkit is the host fixture of the project's own tests: it
// starts a starhost.Host the way a test needs it and records its notes.
// It builds on testkit and is for starhost's external tests and the
// packages above starhost; a plugin author's test uses
// starhost/plugintest.NewHost instead (one plugin, a fake model, a manual
// clock). starhost's internal tests cannot import it (it imports starhost).
package hostkit

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// Start starts a host with opts and closes it when the test ends. Home and
// Workspace, when empty, are fresh temporary directories (home below the
// workspace), so no real configuration, trust file or installed plugin is
// read. Every note is recorded in the returned Log and still delivered to
// opts.Notes when that is set. A host that does not build or start fails
// the test.
func Start(tb testing.TB, opts starhost.Options) (*starhost.Host, *testkit.Log[starhost.Note]) {
	tb.Helper()
	if opts.Workspace == "" {
		opts.Workspace = tb.TempDir()
	}
	if opts.Home == "" {
		opts.Home = filepath.Join(opts.Workspace, "home")
	}
	notes := &testkit.Log[starhost.Note]{}
	if also := opts.Notes; also != nil {
		opts.Notes = func(n starhost.Note) { notes.Add(n); also(n) }
	} else {
		opts.Notes = notes.Add
	}
	h, err := starhost.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = h.Close(context.Background()) })
	return h, notes
}
