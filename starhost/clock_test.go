package starhost_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestCC18_ManualClockRunsTimersWithoutSleeping drives plugins/queue's 1s
// timer with a ManualClock: nothing ticks until Advance, and Advance runs
// exactly the ticks that fall due before it returns.
func TestCC18_ManualClockRunsTimersWithoutSleeping(t *testing.T) {
	clock := starhost.NewManualClock()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(`status_line = ["queue-age"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := starhost.New(starhost.Options{Home: home, Workspace: t.TempDir(), Clock: clock,
		Dev: []string{filepath.Join("..", "plugins", "queue")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	if res := h.Tools(starhost.Work).Invoke(ctx, "queue_add", json.RawMessage(`{"item":"a"}`)); !res.OK() {
		t.Fatal(res.Err)
	}
	if got := clock.Advance(999 * time.Millisecond); got != 0 {
		t.Fatalf("Advance(999ms) ran %d ticks, want 0", got)
	}
	if got := clock.Advance(2001 * time.Millisecond); got != 3 {
		t.Fatalf("Advance to 3s ran %d ticks, want 3", got)
	}
	if line := h.StatusLine(); line != "oldest waited 3 ticks" {
		t.Fatalf("status line %q, want the third tick's text", line)
	}
	h.Close(ctx)
	if got := clock.Advance(time.Hour); got != 0 {
		t.Fatalf("after Close, Advance ran %d ticks", got)
	}
}
