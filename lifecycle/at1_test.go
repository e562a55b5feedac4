package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// gatedActivator blocks every Activate until proceed is closed (or, when
// honourCtx is set, until its context ends), so a test can change the world
// while a generation is being built.
type gatedActivator struct {
	started   chan struct{}
	proceed   chan struct{}
	honourCtx bool
	closed    atomic.Int32
}

type gatedInstance struct {
	a   *gatedActivator
	set *contrib.Set
}

func (a *gatedActivator) Compile(contrib.ActivationRequest) error { return nil }

func (a *gatedActivator) Activate(ctx context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	a.started <- struct{}{}
	if a.honourCtx {
		select {
		case <-a.proceed:
		case <-ctx.Done():
			return nil, &contrib.ActivationError{Diagnostics: []contrib.Diagnostic{
				contrib.Diag(contrib.ExecutionFailed, req.Plugin, contrib.Pos{}, "module: cancelled")}}
		}
	} else {
		<-a.proceed
	}
	st := contrib.NewStaging(req.Plugin, contrib.Rules{})
	st.AddTool(contrib.Tool{Name: "t", Catalogs: contrib.Work, Run: contrib.ToolFunc(func(context.Context, any) contrib.Result { return contrib.Result{Text: "ok"} })})
	return &gatedInstance{a: a, set: st.Set()}, nil
}

func (i *gatedInstance) Set() *contrib.Set                                         { return i.set }
func (i *gatedInstance) Exports() map[string]any                                   { return nil }
func (i *gatedInstance) Attach(context.Context, contrib.AttachStage) (bool, error) { return false, nil }
func (i *gatedInstance) Close()                                                    { i.a.closed.Add(1) }

func gatedPlugin(t *testing.T) string {
	t.Helper()
	dir := testkit.Plugin{ID: "acme.p", Source: "x"}.Write(t, filepath.Join(t.TempDir(), "p"))
	return dir
}

// TestAT1_RevokeDuringActivationAborts: admission is checked
// once more after the module executed; a grant revoked meanwhile discards
// everything staged, and nothing is ever published.
func TestAT1_RevokeDuringActivationAborts(t *testing.T) {
	dir := gatedPlugin(t)
	a := &gatedActivator{started: make(chan struct{}, 1), proceed: make(chan struct{})}
	var granted atomic.Bool
	granted.Store(true)
	reg := contrib.NewRegistry(contrib.RegistryOptions{})
	m := NewManager(Options{
		Roots: []Root{{Dir: filepath.Dir(dir), Source: contrib.SourceHome}}, Activator: a, Registry: reg,
		Admit: func(c *Candidate, fp func() string) []Blocker {
			if granted.Load() {
				return nil
			}
			return []Blocker{{Code: contrib.PluginUntrusted, Message: "revoked", Remedy: "grant"}}
		},
	})
	done := make(chan struct{})
	go func() { m.Start(context.Background()); close(done) }()
	<-a.started
	granted.Store(false) // the operator revokes while the module runs
	close(a.proceed)
	<-done
	p := only(t, m)
	if p.State != Blocked || p.Generation != "" || len(p.Blockers) == 0 || p.Blockers[0].Code != contrib.PluginUntrusted {
		t.Fatalf("after revocation during activation: %s gen %q blockers %v; want blocked, no generation", p.State, p.Generation, p.Blockers)
	}
	if reg.Tools(contrib.Work).Len() != 0 {
		t.Fatal("a staged tool was published")
	}
	if a.closed.Load() != 1 {
		t.Fatalf("staged instance closed %d times, want 1", a.closed.Load())
	}
}

// TestDC24_CancellationNeverStrandsActivating: a caller that gives up while
// a plugin activates leaves it in a settled state, never activating.
func TestDC24_CancellationNeverStrandsActivating(t *testing.T) {
	dir := gatedPlugin(t)
	a := &gatedActivator{started: make(chan struct{}, 1), proceed: make(chan struct{}), honourCtx: true}
	m := NewManager(Options{Roots: []Root{{Dir: dir, Source: contrib.SourceDev}}, Activator: a,
		Registry: contrib.NewRegistry(contrib.RegistryOptions{})})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Start(ctx); close(done) }()
	<-a.started
	if p := only(t, m); p.State != activating {
		t.Fatalf("while the module runs: %s, want activating", p.State)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Start did not return after its context was cancelled")
	}
	if p := only(t, m); p.State != Faulted {
		t.Fatalf("after cancellation: %s, want faulted (settled)", p.State)
	}
	// A later edit retries (DC25) and succeeds.
	close(a.proceed)
	os.WriteFile(filepath.Join(dir, "plugin.star"), []byte("y"), 0o644)
	go func() { <-a.started }()
	m.Reload(context.Background(), dir)
	if p := only(t, m); p.State != Active {
		t.Fatalf("after a fix: %s, want active", p.State)
	}
	m.Close(context.Background())
}
