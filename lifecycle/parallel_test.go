package lifecycle

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// rendezvous lets calls through once two are in flight at once (or after a
// long while), recording the most it saw: a caller that makes its calls one
// at a time shows as 1.
type rendezvous struct {
	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	met         chan struct{}
	once        sync.Once
}

func newRendezvous() *rendezvous { return &rendezvous{met: make(chan struct{})} }

func (r *rendezvous) enter() {
	r.mu.Lock()
	r.inFlight++
	r.maxInFlight = max(r.maxInFlight, r.inFlight)
	if r.inFlight >= 2 {
		r.once.Do(func() { close(r.met) })
	}
	r.mu.Unlock()
	select {
	case <-r.met:
	case <-time.After(10 * time.Second): // one at a time: never met; the assertion fails
	}
	r.mu.Lock()
	r.inFlight--
	r.mu.Unlock()
}

func (r *rendezvous) max() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxInFlight
}

// rendezvousActivator is fakeActivator whose Compile and Activate each wait
// for a second call of their kind in flight; it notes what it executes.
type rendezvousActivator struct {
	fakeActivator
	compiles, activations *rendezvous
}

func (a *rendezvousActivator) Compile(req contrib.ActivationRequest) error {
	a.compiles.enter()
	return a.fakeActivator.Compile(req)
}

func (a *rendezvousActivator) Activate(ctx context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	if len(req.Providers) == 0 {
		a.activations.enter()
	}
	note := contrib.Diag(contrib.PrintNote, req.Plugin, contrib.Pos{}, "executing %s", req.Plugin)
	if req.HoldNotes != nil {
		req.HoldNotes(note)
	} else {
		req.Services.Note(note)
	}
	return a.fakeActivator.Activate(ctx, req)
}

// TestStartActivatesInParallel: Start compiles and
// executes independent plugins on several cores at once, each exactly once,
// and still commits them — generation ids, notes, events — providers before
// consumers and in load order otherwise (DC13), the notes a module sent
// while it executed arriving at its turn; a consumer executes only after
// its provider is active.
func TestStartActivatesInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	root := t.TempDir()
	for i := range 8 {
		testkit.Plugin{ID: fmt.Sprintf("acme.p%d", i)}.Write(t, filepath.Join(root, fmt.Sprintf("p%d", i)))
	}
	// a0 (first in load order) needs z9 (last): z9 activates just before
	// it, the others follow in load order (DependencyOrder).
	testkit.Plugin{ID: "acme.a0", Manifest: "[dependencies]\n\"acme.z9\" = \"1.0.0\"\n"}.Write(t, filepath.Join(root, "a0"))
	testkit.Plugin{ID: "acme.z9", Manifest: "exports = [\"svc\"]\n"}.Write(t, filepath.Join(root, "z9"))
	act := &rendezvousActivator{compiles: newRendezvous(), activations: newRendezvous()}
	services := &noteServices{}
	var events []string
	m := NewManager(Options{Roots: []Root{{Dir: root, Source: contrib.SourceDev}}, Activator: act,
		Registry: contrib.NewRegistry(contrib.RegistryOptions{}), Services: services,
		Events: func(e Event) { events = append(events, e.Kind+" "+e.Plugin+" "+e.Generation) }})
	m.Start(context.Background())
	defer m.Close(context.Background())

	if n := act.compiles.max(); n < 2 {
		t.Errorf("at most %d compile at a time; want independent plugins compiled in parallel", n)
	}
	if n := act.activations.max(); n < 2 {
		t.Errorf("at most %d module executing at a time; want independent plugins executed in parallel", n)
	}
	compiled, activated, _ := act.snapshot()
	if len(compiled) != 10 || len(activated) != 10 {
		t.Errorf("compiled %v, activated %v; want each of the 10 plugins once", compiled, activated)
	}
	if activated[len(activated)-1] != "acme.a0" {
		t.Errorf("activated %v; want the consumer last, after every independent plugin", activated)
	}
	order := []string{"acme.z9", "acme.a0", "acme.p0", "acme.p1", "acme.p2", "acme.p3", "acme.p4", "acme.p5", "acme.p6", "acme.p7"}
	var want, notes []string
	for i, id := range order {
		want = append(want, fmt.Sprintf("activated %s g%d", id, i+1))
		notes = append(notes, "executing "+id)
	}
	if !slices.Equal(events, want) {
		t.Errorf("events %v;\nwant %v (providers first, load order otherwise, ids in that order)", events, want)
	}
	var got []string
	for _, d := range services.All() {
		got = append(got, d.Message)
	}
	if !slices.Equal(got, notes) {
		t.Errorf("notes %v; want %v (held while executing, delivered in load order)", got, notes)
	}
}
