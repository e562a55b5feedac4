package lifecycle

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// TestMC5_DisabledIsStoppedNotBlocked: a plugin disabled by configuration
// has no live generation, state stopped with the reason in the projection
// and no blockers; enabling it re-evaluates it to active.
func TestMC5_DisabledIsStoppedNotBlocked(t *testing.T) {
	dir := testkit.Plugin{ID: "acme.p", Source: "v1"}.Write(t, filepath.Join(t.TempDir(), "p"))
	disabled := true
	a := &drainActivator{release: make(chan struct{}), entered: make(chan struct{}, 8)}
	m := NewManager(Options{Roots: []Root{{Dir: dir, Source: contrib.SourceDev}}, Activator: a,
		Registry: contrib.NewRegistry(contrib.RegistryOptions{}), Disabled: func(string) bool { return disabled }})
	m.Start(context.Background())
	p := only(t, m)
	if p.State != Stopped || p.Generation != "" || len(p.Blockers) != 0 {
		t.Fatalf("disabled plugin: state %s, generation %q, blockers %v; want stopped, none, none", p.State, p.Generation, p.Blockers)
	}
	if p.StopReason == nil || p.StopReason.Code != contrib.PluginDisabled || p.StopReason.Remedy == "" || strings.Contains(p.StopReason.Remedy, "crystal-star") {
		t.Fatalf("stop reason %+v, want PluginDisabled with a remedy that names no CLI command", p.StopReason)
	}
	disabled = false
	m.Reevaluate(context.Background())
	if p := only(t, m); p.State != Active || p.StopReason != nil {
		t.Fatalf("after enable: state %s, reason %+v; want active, none", p.State, p.StopReason)
	}
}

// TestMC5_UpgradeProjection migrates a projection saved when disabled
// meant blocked, keeping other blockers, and leaves current ones alone.
func TestMC5_UpgradeProjection(t *testing.T) {
	old := Projection{ID: "acme.p", State: Blocked, Blockers: []Blocker{
		{Code: contrib.PluginDisabled, Message: "disabled", Remedy: "enable"},
		{Code: contrib.HostVersionTooOld, Message: "old", Remedy: "upgrade"}}}
	got := UpgradeProjection(old)
	if got.State != Stopped || got.StopReason == nil || got.StopReason.Code != contrib.PluginDisabled ||
		len(got.Blockers) != 1 || got.Blockers[0].Code != contrib.HostVersionTooOld {
		t.Fatalf("upgraded %+v", got)
	}
	if len(old.Blockers) != 2 {
		t.Fatal("UpgradeProjection modified its argument")
	}
	cur := Projection{ID: "acme.q", State: Blocked, Blockers: []Blocker{{Code: contrib.PluginUntrusted}}}
	if got := UpgradeProjection(cur); got.State != Blocked || got.StopReason != nil {
		t.Fatalf("current projection changed: %+v", got)
	}
}
