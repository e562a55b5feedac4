package lifecycle

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// probeActivator builds instances that answer contrib.AttachProber: only
// acme.p0 has an attach callback.
type probeActivator struct {
	fakeActivator
	calls atomic.Int32 // Attach calls of instances without callbacks
}

type probeInstance struct {
	contrib.Instance
	a    *probeActivator
	has  bool
	runs atomic.Int32
}

func (i *probeInstance) Attaches(contrib.AttachStage) bool { return i.has }

func (i *probeInstance) Attach(ctx context.Context, s contrib.AttachStage) (bool, error) {
	if !i.has {
		i.a.calls.Add(1)
	}
	i.runs.Add(1)
	return i.has, nil
}

func (a *probeActivator) Activate(ctx context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	inst, err := a.fakeActivator.Activate(ctx, req)
	if err != nil {
		return nil, err
	}
	return &probeInstance{Instance: inst, a: a, has: req.Plugin == "acme.p0"}, nil
}

// TestCC3_ReloadSkipsPluginsWithoutAttach: a reload runs `attach` of every
// plugin that has one again (CC3), and does not call into the plugins that
// have none — with many plugins loaded that empty call per plugin was most
// of a reload.
func TestCC3_ReloadSkipsPluginsWithoutAttach(t *testing.T) {
	root := t.TempDir()
	for i := range 5 {
		testkit.Plugin{ID: fmt.Sprintf("acme.p%d", i)}.Write(t, filepath.Join(root, fmt.Sprintf("p%d", i)))
	}
	act := &probeActivator{}
	var first *probeInstance
	m := NewManager(Options{Roots: []Root{{Dir: root, Source: contrib.SourceDev}}, Activator: act,
		Registry: contrib.NewRegistry(contrib.RegistryOptions{}), Services: &noteServices{},
		Events: func(e Event) {
			if e.Plugin == "acme.p0" && e.Kind == "activated" {
				first = e.Instance.(*probeInstance)
			}
		}})
	m.Start(context.Background())
	defer m.Close(context.Background())
	before := first.runs.Load()
	testkit.WriteTree(t, filepath.Join(root, "p3"), map[string]string{"plugin.star": "contribute() # edited\n"})
	m.Reload(context.Background(), filepath.Join(root, "p3"))
	if got := first.runs.Load() - before; got != 1 {
		t.Errorf("acme.p0's attach ran %d times on another plugin's reload; want once (CC3)", got)
	}
	if n := act.calls.Load(); n != 0 {
		t.Errorf("%d attach calls into plugins without an attach callback; want none", n)
	}
}
