package check_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// countingWorkers returns check workers that count the worker processes
// they start.
func countingWorkers(t *testing.T) (*check.Workers, *atomic.Int32) {
	var n atomic.Int32
	w := check.NewWorkers()
	check.SetWorkerStarted(w, func() { n.Add(1) })
	t.Cleanup(w.Close)
	return w, &n
}

const cleanCheckPlugin = `def run(ctx, args):
    return "ok"

contribute(tools = [tool(name = "%s_echo", description = "Echoes.", catalogs = "plan_and_work", run = run)])
`

// TestCheckWorkerFaultStaysWithItsPlugin: one plugin's dry run that hangs
// past the timeout kills the shared worker; it is reported as that
// plugin's CallbackTimeout, and the plugins after it, dry-run in a fresh
// worker, check clean and publish their tools.
func TestCheckWorkerFaultStaysWithItsPlugin(t *testing.T) {
	dir := t.TempDir()
	before := testkit.Plugin{ID: "acme.before", Source: fmt.Sprintf(cleanCheckPlugin, "before")}.Write(t, filepath.Join(dir, "before"))
	hang := testkit.Plugin{ID: "acme.hang", Source: "def spin():\n    while True:\n        pass\n\nspin()\ncontribute()\n"}.Write(t, filepath.Join(dir, "hang"))
	after := testkit.Plugin{ID: "acme.after", Source: fmt.Sprintf(cleanCheckPlugin, "after")}.Write(t, filepath.Join(dir, "after"))
	// The same tool name as after: the conflict proves after was dry-run
	// and published after the fault.
	dup := testkit.Plugin{ID: "acme.dup", Source: fmt.Sprintf(cleanCheckPlugin, "after")}.Write(t, filepath.Join(dir, "dup"))
	opts := checkTestOptions(t, dir)
	opts.Steps = 1 << 40 // the timeout, not the step budget, ends the spin
	workers, started := countingWorkers(t)
	r, err := check.Plugins(context.Background(), check.Options{Paths: []string{before, hang, after, dup}, Options: opts,
		Timeout: time.Second, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	byPlugin := map[string][]starhost.Note{}
	for _, d := range r.Diagnostics {
		byPlugin[d.Plugin] = append(byPlugin[d.Plugin], d)
	}
	if ds := byPlugin["acme.hang"]; len(ds) != 1 || ds[0].Code != starhost.Code(contrib.CallbackTimeout) ||
		!strings.Contains(ds[0].Message, "callback_timeout 1s exceeded") {
		t.Errorf("acme.hang: %v; want one CallbackTimeout naming the limit", ds)
	}
	if ds := byPlugin["acme.before"]; len(ds) != 0 {
		t.Errorf("acme.before: %v; want none", ds)
	}
	if ds := byPlugin["acme.after"]; len(ds) != 0 {
		t.Errorf("acme.after: %v; want none (the fault was acme.hang's)", ds)
	}
	if ds := byPlugin["acme.dup"]; len(ds) != 1 || !strings.Contains(ds[0].Message, "after_echo") {
		t.Errorf("acme.dup: %v; want the tool name taken by acme.after", ds)
	}
	if n := started.Load(); n != 2 {
		t.Errorf("%d worker processes started; want 2 (one, and a fresh one after the fault)", n)
	}
}

// TestCheckStartsOneWorkerPerRun counts the worker processes a check of N
// plugins starts: one for all of them, none when no plugin gets as far as
// a dry run, and none more when the workers are kept for a second run.
func TestCheckStartsOneWorkerPerRun(t *testing.T) {
	const n = 6
	dir := t.TempDir()
	var paths []string
	for i := range n {
		name := fmt.Sprintf("p%d", i)
		paths = append(paths, testkit.Plugin{ID: "acme." + name, Source: fmt.Sprintf(cleanCheckPlugin, name)}.Write(t, filepath.Join(dir, name)))
	}
	// A missing dependency: the host would block it, so it is compiled in
	// the checking process and never dry-run.
	blocked := testkit.Plugin{ID: "acme.blocked", Source: "contribute()\n"}.Write(t, filepath.Join(dir, "blocked"))
	manifest := "id = \"acme.blocked\"\nversion = \"1.0.0\"\n\n[dependencies]\n\"acme.missing\" = \"1.0.0\"\n"
	if err := os.WriteFile(filepath.Join(blocked, "plugin.toml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := checkTestOptions(t, dir)
	run := func(w *check.Workers, paths ...string) *check.Report {
		t.Helper()
		r, err := check.Plugins(context.Background(), check.Options{Paths: paths, Options: opts, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	workers, started := countingWorkers(t)
	if r := run(workers, paths...); len(r.Plugins) != n || len(r.Diagnostics) != 0 {
		t.Fatalf("check: %d plugins, %v", len(r.Plugins), r.Diagnostics)
	}
	if got := started.Load(); got != 1 {
		t.Errorf("a check of %d plugins started %d workers; want 1", n, got)
	}
	run(workers, paths...)
	if got := started.Load(); got != 1 {
		t.Errorf("a second check with the same workers started %d in all; want 1", got)
	}

	idle, none := countingWorkers(t)
	if r := run(idle, blocked); r.Count(starhost.SeverityError) == 0 {
		t.Fatalf("the blocked plugin checked clean")
	}
	if got := none.Load(); got != 0 {
		t.Errorf("a check with no dry run started %d workers; want 0", got)
	}
}

// TestCheckWorkerMemoryBombStaysWithItsPlugin: a dry run that grows past
// memory_limit is reported as that plugin's ResourceExhausted naming the
// limit, and the plugin after it in the same run checks clean.
func TestCheckWorkerMemoryBombStaysWithItsPlugin(t *testing.T) {
	if checkRace {
		t.Skip("the race detector's shadow memory does not fit under a 64MiB worker limit")
	}
	dir := t.TempDir()
	bomb := testkit.Plugin{ID: "acme.bomb", Source: "def grow():\n    s = \"x\"\n    for i in range(40):\n        s = s + s\n    return s\n\nX = grow()\ncontribute()\n"}.Write(t, filepath.Join(dir, "bomb"))

	after := testkit.Plugin{ID: "acme.after", Source: fmt.Sprintf(cleanCheckPlugin, "after")}.Write(t, filepath.Join(dir, "after"))
	opts := checkTestOptions(t, dir)
	opts.MemoryLimit = 64 << 20
	r, err := check.Plugins(context.Background(), check.Options{Paths: []string{bomb, after}, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	var bombed bool
	for _, d := range r.Diagnostics {
		switch {
		case d.Plugin == "acme.bomb" && d.Code == starhost.Code(contrib.ResourceExhausted) && strings.Contains(d.Message, "memory_limit 64MiB"):
			bombed = true
		case d.Plugin == "acme.after":
			t.Errorf("acme.after: %v; want nothing (the fault was acme.bomb's)", d)
		}
	}
	if !bombed {
		t.Errorf("diagnostics %v; want acme.bomb's ResourceExhausted naming memory_limit 64MiB", r.Diagnostics)
	}
}
