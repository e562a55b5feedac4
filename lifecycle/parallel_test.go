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
)

// rendezvousActivator is fakeActivator whose Compile waits until two
// compiles are in flight at once (or gives up after a long while), so a
// start that compiles one plugin at a time shows as maxInFlight 1.
type rendezvousActivator struct {
	fakeActivator
	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	met         chan struct{}
	once        sync.Once
}

func (a *rendezvousActivator) Compile(req contrib.ActivationRequest) error {
	a.mu.Lock()
	a.inFlight++
	a.maxInFlight = max(a.maxInFlight, a.inFlight)
	if a.inFlight >= 2 {
		a.once.Do(func() { close(a.met) })
	}
	a.mu.Unlock()
	select {
	case <-a.met:
	case <-time.After(10 * time.Second): // sequential: never met; the assertion below fails
	}
	a.mu.Lock()
	a.inFlight--
	a.mu.Unlock()
	return a.fakeActivator.Compile(req)
}

// TestStartCompilesIndependentPluginsInParallel: Start compiles independent
// plugins on several cores at once, compiles each exactly once, and still
// activates providers before their consumers and in load order otherwise
// (DC13), with generation ids in that order.
func TestStartCompilesIndependentPluginsInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	root := t.TempDir()
	for i := range 8 {
		writePlugin(t, filepath.Join(root, fmt.Sprintf("p%d", i)), fmt.Sprintf("acme.p%d", i), "1.0.0", "")
	}
	// a0 (first in load order) needs z9 (last): z9 activates just before
	// it, the others follow in load order (DependencyOrder).
	writePlugin(t, filepath.Join(root, "a0"), "acme.a0", "1.0.0", "[dependencies]\n\"acme.z9\" = \"1.0.0\"\n")
	writePlugin(t, filepath.Join(root, "z9"), "acme.z9", "1.0.0", "exports = [\"svc\"]\n")
	act := &rendezvousActivator{met: make(chan struct{})}
	m := NewManager(Options{Roots: []Root{{Dir: root, Source: contrib.SourceDev}}, Activator: act,
		Registry: contrib.NewRegistry(contrib.RegistryOptions{}), Services: &recordingServices{}})
	m.Start(context.Background())
	defer m.Close(context.Background())

	if act.maxInFlight < 2 {
		t.Fatalf("at most %d compile at a time; want independent plugins compiled in parallel", act.maxInFlight)
	}
	compiled, activated, _ := act.snapshot()
	if len(compiled) != 10 {
		t.Errorf("compiled %v; want each of the 10 plugins once", compiled)
	}
	want := []string{"acme.z9", "acme.a0", "acme.p0", "acme.p1", "acme.p2", "acme.p3", "acme.p4", "acme.p5", "acme.p6", "acme.p7"}
	if !slices.Equal(activated, want) {
		t.Errorf("activated %v; want %v (providers first, load order otherwise)", activated, want)
	}
	for i, id := range want {
		if got := m.Generation(id); got != fmt.Sprintf("g%d", i+1) {
			t.Errorf("%s is %q; want g%d (ids follow activation order)", id, got, i+1)
		}
	}
}
