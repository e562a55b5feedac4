package check_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// TestWatchCheck proves check.Watch re-checks after a save and reports only
// what changed: a new finding, a fixed one, and nothing for a save that
// changes no finding.
func TestWatchCheck(t *testing.T) {
	dir := t.TempDir()
	plug := filepath.Join(dir, "plug")
	write := func(src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(plug, "plugin.star"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const good = "def where(ctx, args):\n    return ctx.workspace\n\ncontribute(tools = [tool(name = \"w\", catalogs = \"work\", run = where)])\n"
	testkit.Plugin{ID: "acme.w", Source: good}.Write(t, plug)
	ctx, cancel := context.WithCancel(context.Background())
	type run struct{ findings, added, fixed int }
	runs := make(chan run, 8)
	done := make(chan error, 1)
	go func() {
		done <- check.Watch(ctx, check.Options{Paths: []string{plug}, Options: checkTestOptions(t, dir)},
			func(r *check.Report, ch check.Change) { runs <- run{len(r.Diagnostics), len(ch.Added), len(ch.Fixed)} })
	}()
	next := func() run {
		t.Helper()
		select {
		case r := <-runs:
			return r
		case err := <-done:
			t.Fatalf("check.Watch returned %v", err)
		case <-time.After(20 * time.Second): // a hang guard, not a timing assertion
			t.Fatal("no run after the save")
		}
		return run{}
	}
	if got := next(); got != (run{}) {
		t.Fatalf("first run = %+v; want no finding", got)
	}
	write("def where(ctx, args):\n    return ctx.worksapce\n\ncontribute(tools = [tool(name = \"w\", catalogs = \"work\", run = where)])\n")
	if got := next(); got != (run{1, 1, 0}) {
		t.Errorf("after the broken save = %+v; want one added finding", got)
	}
	write("def where(ctx, args):\n    return ctx.worksapce  # still wrong\n\ncontribute(tools = [tool(name = \"w\", catalogs = \"work\", run = where)])\n")
	if got := next(); got != (run{1, 0, 0}) {
		t.Errorf("after a save that changes no finding = %+v; want no change", got)
	}
	write(good)
	if got := next(); got != (run{0, 0, 1}) {
		t.Errorf("after the fix = %+v; want one fixed finding", got)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("check.Watch = %v after ctx ended; want nil", err)
	}
}
