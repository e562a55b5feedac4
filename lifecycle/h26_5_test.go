package lifecycle

import (
	"context"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// TestH26_5_DevStartHashesNoBundle: starting a dev plugin computes no
// content fingerprint (nothing admits a dev plugin by it; hashing 1,000
// bundles was 4% of a one-shot call's CPU). The fingerprint is still there
// when asked: the plugin's status shows the one computed from the bytes
// that run, and an unchanged reload is still a no-op
// (TestAT3_UnchangedFingerprintIsNoOp).
func TestH26_5_DevStartHashesNoBundle(t *testing.T) {
	h := newHarness(t)
	testkit.Plugin{ID: "acme.x"}.Write(t, h.dir("acme"))
	h.m.Start(context.Background())
	h.m.mu.RLock()
	p := h.m.plugins[0]
	b, mf := p.gen.bundle, p.cand.Manifest
	h.m.mu.RUnlock()
	if b.fp.Load() != nil {
		t.Fatalf("Start computed the fingerprint of a dev plugin's bundle")
	}
	got := h.plugin("acme.x").Fingerprint
	fresh, err := ReadBundle(h.dir("acme"))
	if err != nil {
		t.Fatal(err)
	}
	if want := Fingerprint(mf, fresh); got == "" || got != want {
		t.Fatalf("status fingerprint %q, want %q (the bytes that run)", got, want)
	}
	if b.fp.Load() == nil {
		t.Errorf("the fingerprint asked for is not remembered by the snapshot")
	}
}
