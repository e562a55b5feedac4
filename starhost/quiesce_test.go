package starhost

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// stuckActivator builds generations with one tool, "stuck", whose calls
// block until release is closed, ignoring cancellation (a call stuck in a Go
// builtin).
type stuckActivator struct {
	entered chan struct{}
	release chan struct{}
}

type stuckInstance struct{ set *contrib.Set }

func (a *stuckActivator) Compile(contrib.ActivationRequest) error { return nil }
func (a *stuckActivator) Activate(_ context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	st := contrib.NewStaging(req.Plugin, contrib.Rules{})
	st.AddTool(contrib.Tool{Name: "stuck", Catalogs: contrib.Work, Run: contrib.ToolFunc(func(context.Context, any) contrib.Result {
		a.entered <- struct{}{}
		<-a.release
		return contrib.Result{Text: "done"}
	})})
	return &stuckInstance{set: st.Set()}, nil
}
func (i *stuckInstance) Set() *contrib.Set                                         { return i.set }
func (i *stuckInstance) Exports() map[string]any                                   { return nil }
func (i *stuckInstance) Attach(context.Context, contrib.AttachStage) (bool, error) { return false, nil }
func (i *stuckInstance) Close()                                                    {}

// TestDC28_QuiesceFailedLeavesTheBundleUntouched: replacing a disabled
// plugin whose old generation still has work that ignores cancellation is
// not_applied with PluginContributionQuiesceFailed, and the installed
// directory is untouched.
func TestDC28_QuiesceFailedLeavesTheBundleUntouched(t *testing.T) {
	a := &stuckActivator{entered: make(chan struct{}, 1), release: make(chan struct{})}
	testActivator = func() contrib.Activator { return a }
	defer func() { testActivator = nil }()
	home, ws := t.TempDir(), t.TempDir()
	installed := filepath.Join(home, "plugins", "p")
	for dir, body := range map[string]string{installed: "old", filepath.Join(ws, "src", "p"): "new"} {
		testkit.Plugin{ID: "acme.p", Source: body}.Write(t, dir)
	}
	h, err := New(Options{Home: home, Workspace: ws, CleanupTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h.Start(ctx)
	if _, err := h.Operator().Grant(ctx, "acme.p"); err != nil {
		t.Fatal(err)
	}
	go h.Session().Thread("").Tools(context.Background(), Work).Invoke(ctx, "stuck", nil)
	<-a.entered
	if _, err := h.Operator().Disable(ctx, "acme.p", false); err != nil {
		t.Fatal(err)
	}
	res, err := h.Operator().Install(ctx, filepath.Join(ws, "src", "p"), false)
	if !errors.Is(err, ErrNotApplied) || !errors.Is(err, Code(contrib.PluginContributionQuiesceFailed)) || res.Changed {
		t.Fatalf("install over a plugin still draining: %+v, %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(installed, "plugin.star")); string(data) != "old" {
		t.Fatalf("installed bundle changed: %q", data)
	}
	if res.Plugin == nil || res.Plugin.State != StateDeactivating || !res.Plugin.TeardownPending {
		t.Fatalf("plugin: %+v, want deactivating with teardown pending", res.Plugin)
	}
	close(a.release)
	h.Close(ctx)
}

// Close reports the generations whose calls did not drain within the
// cleanup timeout (they were cancelled and waited for), and a second Close
// reports nothing.
func TestCloseReportsUndrainedGenerations(t *testing.T) {
	a := &stuckActivator{entered: make(chan struct{}, 1), release: make(chan struct{})}
	testActivator = func() contrib.Activator { return a }
	defer func() { testActivator = nil }()
	dir := testkit.Plugin{ID: "acme.p", Source: "x"}.Write(t, filepath.Join(t.TempDir(), "p"))
	h, err := New(Options{Home: t.TempDir(), Workspace: t.TempDir(), Dev: []string{dir}, CleanupTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	go h.Session().Thread("").Tools(ctx, Work).Invoke(ctx, "stuck", nil)
	<-a.entered
	closed := make(chan error, 1)
	go func() { closed <- h.Close(ctx) }()
	for len(h.manager.Overdue()) == 0 { // Close waits for the call: release it once it is overdue
		time.Sleep(time.Millisecond)
	}
	close(a.release)
	err = <-closed
	if !errors.Is(err, ErrNotDrained) || !strings.Contains(err.Error(), "acme.p@") {
		t.Fatalf("close: %v, want not_drained naming acme.p", err)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatalf("second close: %v", err)
	}
}
