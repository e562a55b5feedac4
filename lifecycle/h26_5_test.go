package lifecycle

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
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
	b, mf, top := p.gen.bundle, p.cand.Manifest, p.cand.top
	h.m.mu.RUnlock()
	if top != nil {
		t.Errorf("the candidate still holds discovery's listing after the snapshot took it")
	}
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

// TestH26_5_DiscoveryListingServesTheSnapshot: discovery finds a top-level
// entry file in a listing of the plugin directory instead of a stat, and
// the bundle snapshot Start reads next takes that listing instead of listing
// the directory again. The entry rules stay: a missing entry or a directory
// is EntryMissing; a nested entry and an entry that is a link to a file are
// found.
func TestH26_5_DiscoveryListingServesTheSnapshot(t *testing.T) {
	root := t.TempDir()
	manifest := func(entry string) string {
		return "id = \"a.b\"\nversion = \"1.0.0\"\nentry = \"" + entry + "\"\n"
	}
	testkit.WriteTree(t, filepath.Join(root, "top"), map[string]string{ManifestName: manifest("main.star"), "main.star": "contribute()\n"})
	testkit.WriteTree(t, filepath.Join(root, "nested"), map[string]string{ManifestName: manifest("src/main.star"), "src/main.star": "contribute()\n"})
	testkit.WriteTree(t, filepath.Join(root, "missing"), map[string]string{ManifestName: manifest("main.star"), "other.star": ""})
	testkit.WriteTree(t, filepath.Join(root, "isdir"), map[string]string{ManifestName: manifest("main.star"), "main.star/x": ""})
	testkit.WriteTree(t, filepath.Join(root, "link"), map[string]string{ManifestName: manifest("main.star"), "real.star": "contribute()\n"})
	if err := os.Symlink("real.star", filepath.Join(root, "link", "main.star")); err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Candidate{}
	for _, c := range Discover([]Root{{Dir: root, Source: contrib.SourceDev}}, identity) {
		byName[c.Name] = c
	}
	for name, ok := range map[string]bool{"top": true, "nested": true, "link": true, "missing": false, "isdir": false} {
		c := byName[name]
		if got := c.Manifest != nil; got != ok || !ok && (len(c.Diagnostics) != 1 || c.Diagnostics[0].Code != contrib.EntryMissing) {
			t.Errorf("%s: found = %v, diagnostics %v; want found = %v", name, got, c.Diagnostics, ok)
		}
	}
	c := byName["top"]
	if c.top == nil {
		t.Fatal("discovery kept no listing of the plugin directory")
	}
	// A file added after discovery is not in the listing the snapshot
	// takes; a fresh ReadBundle sees it.
	testkit.WriteTree(t, c.Dir, map[string]string{"late.star": ""})
	b, err := readBundle(c.Dir, ManifestName, c.manifestData, c.listed, c.top)
	if err != nil {
		t.Fatal(err)
	}
	if _, late := b.Files()["late.star"]; late || b.Files()["main.star"] == nil {
		t.Errorf("snapshot files %v: want discovery's listing (main.star, no late.star)", slices.Collect(maps.Keys(b.Files())))
	}
	if fresh, _ := ReadBundle(c.Dir); fresh.Files()["late.star"] == nil {
		t.Errorf("ReadBundle lists the directory itself: late.star missing")
	}
}

// waitActivator's Activate waits for its context and returns its error.
type waitActivator struct{ contrib.Activator }

func (waitActivator) Activate(ctx context.Context, _ contrib.ActivationRequest) (contrib.Instance, error) {
	<-ctx.Done()
	return nil, context.Cause(ctx)
}

// TestH26_5_AnswerFromAheadMakesNoTimer: an activation answered from the
// execution done ahead allocates nothing (it made a deadline context, a
// timer and an AfterFunc per plugin on the goroutine that publishes); one
// that runs now still ends at its timeout.
func TestH26_5_AnswerFromAheadMakesNoTimer(t *testing.T) {
	a := &aheadActivator{Activator: waitActivator{}, done: map[string]*aheadResult{}, spent: map[string]time.Duration{}}
	req := contrib.ActivationRequest{Plugin: "acme.x", Generation: "g1"}
	r := &aheadResult{req: req, executed: true}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		a.mu.Lock()
		a.done[req.Plugin] = r
		a.mu.Unlock()
		if _, err := a.activateWithin(ctx, req, time.Minute); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("an answer from ahead allocated %v times, want 0", allocs)
	}
	if _, err := a.activateWithin(ctx, req, time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an activation that runs now ended with %v, want its deadline", err)
	}
}
