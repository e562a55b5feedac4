package lifecycle

import (
	"runtime"
	"testing"
	"weak"

	"github.com/crystal-star/crystal-star/contrib"
)

// TestMC9_LeakedGenerationsPerPlugin pins one retired generation of one
// plugin past its teardown and two collections: it counts as leaked for that
// plugin only, and a released one counts for nobody.
func TestMC9_LeakedGenerationsPerPlugin(t *testing.T) {
	pinned := &contrib.Set{}
	m := NewManager(Options{Registry: contrib.NewRegistry(contrib.RegistryOptions{})})
	m.retired = []*retiredGen{
		{plugin: "acme.leaky", id: "g1", ref: weak.Make(pinned), doneCycles: readGCCycles()},
		{plugin: "acme.clean", id: "g2", ref: weak.Make(&contrib.Set{}), doneCycles: readGCCycles()},
	}
	runtime.GC()
	runtime.GC()
	got := m.LeakedBy()
	if got["acme.leaky"] != 1 || got["acme.clean"] != 0 {
		t.Fatalf("LeakedBy = %v, want acme.leaky:1 only", got)
	}
	if s := m.Stats(); s.LeakedGenerations != 1 || !s.RestartRecommended {
		t.Fatalf("Stats = %+v, want one leaked generation and a restart recommended", s)
	}
	runtime.KeepAlive(pinned)
}
