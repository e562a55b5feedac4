package starhost_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/internal/testkit/hostkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// TestAT2_ReloadUnderLoadLosesNoCall: 8 goroutines dispatch 5,000 calls
// each to one plugin tool while that plugin reloads 50 times. Because the
// next generation is built while the previous one serves and replaces it
// in one publication (AT2), not one call fails, and nothing is left running
// once the host closes.
func TestAT2_ReloadUnderLoadLosesNoCall(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test: it runs in the full suite (go test -race ./...), not under -short")
	}
	const workers, calls, reloads = 8, 5000, 50
	// The process-wide heap watchdog (builtins) starts with the first
	// Starlark run of the process and stays: start it before counting.
	warm, _ := approvingHost(t)
	warm.Close(context.Background())
	before := runtime.NumGoroutine()
	h, dir := approvingHost(t)
	call := starhost.ToolCall{ID: "c", Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}
	failures := make(chan string, workers*calls)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				res := h.Session().Thread("thread-1").Dispatch(context.Background(), call, nil)
				if !res.Result.OK() {
					failures <- string(res.Result.Error.Code) + ": " + res.Result.Error.Message
				}
			}
		}()
	}
	for i := 1; i <= reloads; i++ {
		testkit.WriteTree(t, dir, map[string]string{"plugin.star": reloadSource(i)})
		if err := h.Reload(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(failures)
	n, first := 0, ""
	for f := range failures {
		if n == 0 {
			first = f
		}
		n++
	}
	if n > 0 {
		t.Errorf("%d of %d calls failed during %d reloads; first: %s", n, workers*calls, reloads, first)
	}
	res := h.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(context.Background(), "echo", json.RawMessage(`{"text":"x"}`))
	if res.Text != "v50:X" {
		t.Errorf("after %d reloads: %+v, want v50:X", reloads, res)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitGoroutines(t, before)
}

// approvingHost starts a host with one dev plugin (reloadSource) whose
// approver approves every call; it is closed when tb ends.
func approvingHost(tb testing.TB) (*starhost.Host, string) {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "reload")
	testkit.WriteTree(tb, dir, map[string]string{"plugin.toml": reloadManifest, "plugin.star": reloadSource(0)})
	approve := func(context.Context, starhost.ApprovalRequest) starhost.Approval {
		return starhost.Approval{Approved: true}
	}
	h, _ := hostkit.Start(tb, starhost.Options{Dev: []string{dir}, Points: starhost.PointDefaults{Approve: approve}})
	return h, dir
}

// waitGoroutines fails t when goroutines started since before are still
// running once the host has had time to let them end.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("leaked goroutines: %d before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAT3_FailedReloadKeepsServing: every kind of failure of the next
// generation — a top-level run-time error, the step budget, contribute()
// errors that leave nothing, a syntax error — keeps the previous generation
// serving with the failed attempt's diagnostics and a kept event.
func TestAT3_FailedReloadKeepsServing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reload")
	testkit.WriteTree(t, dir, map[string]string{"plugin.toml": reloadManifest, "plugin.star": reloadSource(1)})
	var mu sync.Mutex
	var kinds []string
	h, err := starhost.New(starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Dev: []string{dir}, Steps: 10000,
		Events: func(e starhost.Event) {
			mu.Lock()
			kinds = append(kinds, string(e.Kind)+" "+e.Generation)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	for _, c := range []struct{ name, src, code string }{
		{"run-time error", "x = {}[\"missing\"]\ncontribute()\n", "ExecutionFailed"},
		{"step budget", "def f():\n    for i in range(1000000):\n        pass\nf()\ncontribute()\n", "TooManySteps"},
		{"nothing left", "contribute(tools = [tool(name = \"bad name\", catalogs = \"work\", run = lambda ctx, args: 1)])\n", "ToolNameInvalid"},
		{"syntax", "contribute(\n", "SyntaxError"},
	} {
		testkit.WriteTree(t, dir, map[string]string{"plugin.star": c.src})
		h.Reload(context.Background(), dir)
		res := h.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(context.Background(), "echo", json.RawMessage(`{"text":"x"}`))
		if res.Text != "v1:X" {
			t.Errorf("%s: echo answered %+v, want g1 still serving", c.name, res)
		}
		p := h.Plugins()[0]
		found := false
		for _, d := range p.Diagnostics {
			found = found || string(d.Code) == c.code
		}
		if p.State != "active" || p.Generation != "g1" || !found {
			t.Errorf("%s: %s %s %v, want active g1 with %s", c.name, p.State, p.Generation, p.Diagnostics, c.code)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"activated g1", "kept g1", "kept g1", "kept g1", "kept g1"}; !slices.Equal(kinds, want) {
		t.Errorf("events %v, want %v", kinds, want)
	}
}

// TestAT2_ModifiedInstalledPluginStopsOnReload: admission is re-checked at
// the switch. An installed plugin whose bytes changed without a grant is
// blocked as modified, and what it served stops: make-before-break never
// lets ungranted code keep a foothold.
func TestAT2_ModifiedInstalledPluginStopsOnReload(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "plugins", "sample")
	testkit.WriteTree(t, dir, sampleBundle)
	h, _ := hostkit.Start(t, starhost.Options{Home: home, Workspace: t.TempDir()})
	if _, err := h.Operator().Grant(context.Background(), "acme.sample"); err != nil {
		t.Fatal(err)
	}
	if p := pluginState(t, h, "acme.sample"); p.State != starhost.StateActive {
		t.Fatalf("granted plugin: %s %v", p.State, p.Blockers)
	}
	snap := h.Session().Thread("").Tools(context.Background(), starhost.Work)
	testkit.WriteTree(t, dir, map[string]string{"lib/a.star": "x = \"tampered\"\n"})
	h.Reload(context.Background(), dir)
	p := pluginState(t, h, "acme.sample")
	if p.State != starhost.StateBlocked || len(p.Blockers) == 0 || p.Blockers[0].Code != starhost.Code(contrib.PluginTrustModified) {
		t.Fatalf("after changing its bytes: %s %v, want blocked PluginTrustModified", p.State, p.Blockers)
	}
	if res := snap.Invoke(context.Background(), "t", nil); res.Error == nil || res.Error.Code != starhost.ErrToolUnavailable {
		t.Fatalf("its tool after the change: %+v, want tool_unavailable", res)
	}
}
