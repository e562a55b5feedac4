package lifecycle

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// slowActivator takes at least pause to activate, as a worker's start does.
type slowActivator struct {
	fakeActivator
	pause time.Duration
}

func (a *slowActivator) Activate(ctx context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	time.Sleep(a.pause)
	return a.fakeActivator.Activate(ctx, req)
}

// TestActivatedElapsedIncludesWorkAhead: a generation built ahead at start
// (parallel.go) reports in its event the time it spent there — the dev
// console's "loaded … in" — not only the moment it was published. The
// bound is a floor (the activation cannot have taken less), never a
// ceiling, so the test does not depend on the machine's speed.
func TestActivatedElapsedIncludesWorkAhead(t *testing.T) {
	root := t.TempDir()
	testkit.Plugin{ID: "acme.p"}.Write(t, filepath.Join(root, "p"))
	const pause = 30 * time.Millisecond
	var got time.Duration
	m := NewManager(Options{Roots: []Root{{Dir: root, Source: contrib.SourceDev}}, Activator: &slowActivator{pause: pause},
		Registry: contrib.NewRegistry(contrib.RegistryOptions{}), Services: &noteServices{},
		Events: func(e Event) {
			if e.Plugin == "acme.p" && e.Kind == "activated" {
				got = e.Elapsed
			}
		}})
	m.Start(context.Background())
	defer m.Close(context.Background())
	if got < pause {
		t.Errorf("activated event Elapsed = %s; the activation took at least %s", got, pause)
	}
}
