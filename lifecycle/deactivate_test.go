package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// drainActivator builds generations with one tool, "work", whose calls block
// until release is closed, ignoring cancellation, as a call stuck in a Go
// builtin would.
type drainActivator struct {
	release  chan struct{}
	closed   atomic.Int32
	entered  chan struct{}
	attached []contrib.AttachStage
	mu       sync.Mutex
	disabled atomic.Bool // what config.toml would say
}

type drainInstance struct {
	a   *drainActivator
	set *contrib.Set
}

func (a *drainActivator) Compile(contrib.ActivationRequest) error { return nil }

func (a *drainActivator) Activate(_ context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	st := contrib.NewStaging(req.Plugin, contrib.Rules{})
	st.AddTool(contrib.Tool{Name: "work", Catalogs: contrib.Work, Run: contrib.ToolFunc(func(ctx context.Context, _ any) contrib.Result {
		a.entered <- struct{}{}
		<-a.release // ignores ctx on purpose
		return contrib.Result{Text: "done"}
	})})
	return &drainInstance{a: a, set: st.Set()}, nil
}

func (i *drainInstance) Set() *contrib.Set       { return i.set }
func (i *drainInstance) Exports() map[string]any { return nil }
func (i *drainInstance) Close()                  { i.a.closed.Add(1) }
func (i *drainInstance) Attach(_ context.Context, s contrib.AttachStage) (bool, error) {
	i.a.mu.Lock()
	i.a.attached = append(i.a.attached, s)
	i.a.mu.Unlock()
	return true, nil
}

func drainSetup(t *testing.T, timeout time.Duration) (*Manager, *drainActivator, *contrib.Registry, string) {
	t.Helper()
	dir := testkit.Plugin{ID: "acme.p", Source: "v1"}.Write(t, filepath.Join(t.TempDir(), "p"))
	a := &drainActivator{release: make(chan struct{}), entered: make(chan struct{}, 8)}
	reg := contrib.NewRegistry(contrib.RegistryOptions{})
	m := NewManager(Options{Roots: []Root{{Dir: dir, Source: contrib.SourceDev}}, Activator: a, Registry: reg, CleanupTimeout: timeout,
		Disabled: func(string) bool { return a.disabled.Load() }})
	m.Start(context.Background())
	return m, a, reg, dir
}

func only(t *testing.T, m *Manager) Projection {
	t.Helper()
	ps := m.Plugins()
	if len(ps) != 1 {
		t.Fatalf("%d plugins", len(ps))
	}
	return ps[0]
}

// TestDC26_RevokeFirstThenDrain: deactivation (here: the plugin is
// disabled) revokes every handle first — a snapshot taken earlier yields
// tool_unavailable at once — and waits for admitted calls to drain before
// the generation is torn down.
func TestDC26_RevokeFirstThenDrain(t *testing.T) {
	m, a, reg, _ := drainSetup(t, 5*time.Second)
	snap := reg.Tools(contrib.Work)
	done := make(chan contrib.Result)
	go func() { done <- snap.Invoke(context.Background(), "work", nil) }()
	<-a.entered
	a.disabled.Store(true)
	stopped := make(chan struct{})
	go func() { m.Reevaluate(context.Background()); close(stopped) }()
	// Once deactivation has begun, the old snapshot is already revoked.
	deadline := time.Now().Add(5 * time.Second)
	for only(t, m).State != Deactivating {
		if time.Now().After(deadline) {
			t.Fatal("never started deactivating")
		}
		time.Sleep(time.Millisecond)
	}
	if res := snap.Invoke(context.Background(), "work", nil); res.Err == nil || res.Err.Code != contrib.ErrToolUnavailable {
		t.Fatalf("old snapshot during drain: %+v, want tool_unavailable", res)
	}
	if a.closed.Load() != 0 {
		t.Fatal("generation torn down before its calls drained")
	}
	close(a.release)
	if res := <-done; res.Text != "done" {
		t.Fatalf("admitted call: %+v, want it to finish on its generation", res)
	}
	<-stopped
	if p := only(t, m); p.State != Stopped && p.State != Reclaiming || p.Generation != "" { // MC5: disabled is stopped
		t.Fatalf("after disabling: %s %q", p.State, p.Generation)
	}
	m.Close(context.Background())
}

// TestAT2_ReloadPublishesBeforeOldDrains: while a call runs on
// g1, a reload publishes g2 at once (new snapshots list it) and only then
// drains g1: the admitted call finishes on g1, which is torn down after.
// Reload returns once g2 serves, while g1 still drains (issue 25, point 7).
func TestAT2_ReloadPublishesBeforeOldDrains(t *testing.T) {
	m, a, reg, dir := drainSetup(t, 5*time.Second)
	done := make(chan contrib.Result)
	go func() { done <- reg.Tools(contrib.Work).Invoke(context.Background(), "work", nil) }()
	<-a.entered
	os.WriteFile(filepath.Join(dir, "plugin.star"), []byte("v2"), 0o644)
	reloaded := make(chan struct{})
	go func() { m.Reload(context.Background(), dir); close(reloaded) }()
	deadline := time.Now().Add(5 * time.Second)
	for reg.Tools(contrib.Work).List()[0].Generation != "g2" {
		if time.Now().After(deadline) {
			t.Fatal("g2 never published while g1 had a call running")
		}
		time.Sleep(time.Millisecond)
	}
	if p := only(t, m); p.State != Active || p.Generation != "g2" {
		t.Fatalf("during the drain: %s %q, want g2 active", p.State, p.Generation)
	}
	<-reloaded // before g1's call ends: the drain goes on in the background
	if a.closed.Load() != 0 {
		t.Fatal("g1 torn down before its call finished")
	}
	close(a.release)
	if res := <-done; res.Text != "done" {
		t.Fatalf("admitted call: %+v, want it to finish on g1", res)
	}
	waitFor(t, "g1 torn down", func() bool { return a.closed.Load() == 1 })
	if n := a.closed.Load(); n != 1 {
		t.Fatalf("%d generations torn down, want g1 only", n)
	}
	m.Close(context.Background())
}

// TestDC26_TeardownPendingBlocksReactivation: a call that ignores
// cancellation past the cleanup timeout leaves the replaced generation's
// teardown pending; the plugin serves its new generation but cannot be
// replaced again until the work ends, and Close waits for it even past the
// timeout (DC27).
func TestDC26_TeardownPendingBlocksReactivation(t *testing.T) {
	m, a, reg, dir := drainSetup(t, 20*time.Millisecond)
	go reg.Tools(contrib.Work).Invoke(context.Background(), "work", nil)
	<-a.entered
	os.WriteFile(filepath.Join(dir, "plugin.star"), []byte("v2"), 0o644)
	m.Reload(context.Background(), dir) // returns once g2 serves; g1 drains in the background
	waitFor(t, "g1's teardown pending", func() bool { return only(t, m).TeardownPending })
	p := only(t, m)
	if p.State != Active || !p.TeardownPending || p.Generation != "g2" {
		t.Fatalf("after timeout: state %s pending %v gen %q; want g2 active, g1 teardown pending", p.State, p.TeardownPending, p.Generation)
	}
	os.WriteFile(filepath.Join(dir, "plugin.star"), []byte("v3"), 0o644)
	m.Reload(context.Background(), dir)
	if p := only(t, m); p.Generation != "g2" {
		t.Fatalf("replaced while teardown pending: %s %q", p.State, p.Generation)
	}
	closed := make(chan struct{})
	go func() { m.Close(context.Background()); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while teardown was pending")
	case <-time.After(50 * time.Millisecond):
	}
	close(a.release)
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close never returned after the work ended")
	}
	if n := a.closed.Load(); n < 2 {
		t.Fatalf("%d instances closed, want g1 and g2", n)
	}
}

// TestCC3_AttachOrder: the attach stages run in the fixed order.
func TestCC3_AttachOrder(t *testing.T) {
	m, a, _, _ := drainSetup(t, time.Second)
	defer m.Close(context.Background())
	a.mu.Lock()
	defer a.mu.Unlock()
	want := contrib.AttachStages
	if len(a.attached) != len(want) {
		t.Fatalf("stages %v, want %v", a.attached, want)
	}
	for i := range want {
		if a.attached[i] != want[i] {
			t.Fatalf("stages %v, want %v", a.attached, want)
		}
	}
}

// TestDC25_DeferredActivationAfterTeardown: once the stuck work ends,
// the plugin activates its new source without another edit.
func TestDC25_DeferredActivationAfterTeardown(t *testing.T) {
	m, a, reg, dir := drainSetup(t, 20*time.Millisecond)
	defer m.Close(context.Background())
	go reg.Tools(contrib.Work).Invoke(context.Background(), "work", nil)
	<-a.entered
	os.WriteFile(filepath.Join(dir, "plugin.star"), []byte("v2"), 0o644)
	m.Reload(context.Background(), dir) // g2 serves; g1's teardown is pending
	os.WriteFile(filepath.Join(dir, "plugin.star"), []byte("v3"), 0o644)
	m.Reload(context.Background(), dir) // deferred
	close(a.release)
	deadline := time.Now().Add(5 * time.Second)
	for {
		p := only(t, m)
		if p.State == Active && p.Generation == "g3" && !p.TeardownPending {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never reactivated: %s %q pending=%v", p.State, p.Generation, p.TeardownPending)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestCC17_UnchangedReloadDoesNotAttachAgain: the attach stages run once per
// loaded generation; a reload that keeps the generation runs none of them.
func TestCC17_UnchangedReloadDoesNotAttachAgain(t *testing.T) {
	m, a, _, dir := drainSetup(t, time.Second)
	defer m.Close(context.Background())
	count := func() int {
		a.mu.Lock()
		defer a.mu.Unlock()
		return len(a.attached)
	}
	before := count()
	m.Reload(context.Background(), dir)
	if got := count(); got != before {
		t.Fatalf("an unchanged reload ran %d attach stages", got-before)
	}
	os.WriteFile(filepath.Join(dir, "plugin.star"), []byte("v2"), 0o644)
	m.Reload(context.Background(), dir)
	if got := count(); got != before+len(contrib.AttachStages) {
		t.Fatalf("a new generation ran %d attach stages, want %d", got-before, len(contrib.AttachStages))
	}
}

// waitFor polls cond until it holds (the background drain of a replaced
// generation), failing after 5 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}
