package lifecycle

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// manyPlugins starts a manager over n one-tool plugins. Its GC cycle counter
// is the returned fake (reads counted), so a test decides when collections
// "happen" and sees how often the manager asks.
func manyPlugins(t *testing.T, n int, events func(Event)) (*Manager, *atomic.Uint64, *atomic.Int64) {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		testkit.Plugin{ID: fmt.Sprintf("acme.p%04d", i)}.Write(t, filepath.Join(root, fmt.Sprintf("p%04d", i)))
	}
	m := NewManager(Options{
		Roots:     []Root{{Dir: root, Source: contrib.SourceDev}},
		Activator: &fakeActivator{},
		Registry:  contrib.NewRegistry(contrib.RegistryOptions{}),
		Services:  &noteServices{},
		Events:    events,
	})
	var cycles atomic.Uint64
	var reads atomic.Int64
	cycles.Store(1)
	m.cycles = func() uint64 { reads.Add(1); return cycles.Load() }
	m.Start(context.Background())
	for _, p := range m.Plugins() {
		if p.State != Active {
			t.Fatalf("%s is %s: %v", p.ID, p.State, p.Diagnostics)
		}
	}
	return m, &cycles, &reads
}

// TestDC27_CloseObservesReclaimOncePerBatch: closing n generations reads
// the collector's cycle counter once for the whole batch, not once per
// generation, and never forces a collection (the counter is a fake that only
// the test advances) — yet leaked_generations keeps its meaning: each
// generation still pinned after two collections since the batch counts.
func TestDC27_CloseObservesReclaimOncePerBatch(t *testing.T) {
	const n = 300
	var mu sync.Mutex
	var pinned []*contrib.Set // what a leaking embedder would hold on to
	m, cycles, reads := manyPlugins(t, n, func(e Event) {
		if e.Kind == "activated" {
			mu.Lock()
			pinned = append(pinned, e.Instance.Set())
			mu.Unlock()
		}
	})
	before := reads.Load()
	m.Close(context.Background())
	if got := reads.Load() - before; got > 1 {
		t.Fatalf("Close of %d generations read the GC cycle counter %d times; want at most once per batch", n, got)
	}
	if st := m.Stats(); st.Reclaiming != n || st.LeakedGenerations != 0 {
		t.Fatalf("right after Close: %+v; want %d reclaiming, none leaked", st, n)
	}
	cycles.Add(1)
	if st := m.Stats(); st.LeakedGenerations != 0 {
		t.Fatalf("one collection after Close: %+v; want none leaked yet", st)
	}
	cycles.Add(1)
	if st := m.Stats(); st.LeakedGenerations != n || !st.RestartRecommended {
		t.Fatalf("two collections after Close with every set pinned: %+v; want %d leaked", st, n)
	}
	runtime.KeepAlive(pinned)
}

// TestDC27_BulkDeactivationIsOneBatch: a rescan that finds every plugin
// gone deactivates them as one batch — one read of the cycle counter — and
// generations nobody pins are reclaimed for real.
func TestDC27_BulkDeactivationIsOneBatch(t *testing.T) {
	const n = 200
	m, _, reads := manyPlugins(t, n, nil)
	t.Cleanup(func() { m.Close(context.Background()) })
	m.opts.Roots = nil // every plugin disappears
	before := reads.Load()
	m.Rescan(context.Background())
	if got := reads.Load() - before; got > 1 {
		t.Fatalf("a rescan stopping %d plugins read the GC cycle counter %d times; want at most once", n, got)
	}
	m.cycles = nil // the runtime's counter from here on
	runtime.GC()
	runtime.GC()
	if st := m.Stats(); st.LeakedGenerations != 0 || st.Reclaiming != 0 {
		t.Fatalf("after two collections: %+v; want every unpinned generation reclaimed", st)
	}
}

// TestDC27_RetiredListStaysBounded: the list of retired generations is
// pruned as it grows (amortised, not on every deactivation), so it stays
// proportional to what is still in memory, not to the number of reloads.
func TestDC27_RetiredListStaysBounded(t *testing.T) {
	h := newHarness(t)
	testkit.Plugin{ID: "acme.one"}.Write(t, h.dir("one"))
	h.m.Start(context.Background())
	for i := range 200 {
		h.setSource("one", fmt.Sprintf("contribute() # %d\n", i))
		h.m.Reload(context.Background(), h.dir("one"))
		if i%50 == 0 {
			h.mu.Lock()
			h.events = nil // the harness's events pin instances
			h.mu.Unlock()
			runtime.GC()
		}
	}
	h.m.mu.RLock()
	n := len(h.m.retired)
	h.m.mu.RUnlock()
	if n > 120 {
		t.Fatalf("%d retired generations tracked after 200 reloads with collections between; want the released ones pruned", n)
	}
}
