package starhost_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
	if res := h.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(ctx, "queue_add", json.RawMessage(`{"item":"a"}`)); !res.OK() {
		t.Fatal(res.Error)
	}
	if got := clock.Advance(999 * time.Millisecond); got != 0 {
		t.Fatalf("Advance(999ms) ran %d ticks, want 0", got)
	}
	if got := clock.Advance(2001 * time.Millisecond); got != 3 {
		t.Fatalf("Advance to 3s ran %d ticks, want 3", got)
	}
	if line := h.Session().StatusLine(); line != "oldest waited 3 ticks" {
		t.Fatalf("status line %q, want the third tick's text", line)
	}
	h.Close(ctx)
	if got := clock.Advance(time.Hour); got != 0 {
		t.Fatalf("after Close, Advance ran %d ticks", got)
	}
}

// TestManualClockOrder: ticks run in order of due time, ties in the order
// the timers were started; a stopped timer never runs again.
func TestManualClockOrder(t *testing.T) {
	c := starhost.NewManualClock()
	var got []string
	c.Every(time.Second, func() { got = append(got, "a") })
	stopB := c.Every(1500*time.Millisecond, func() { got = append(got, "b") })
	if n := c.Advance(3 * time.Second); n != 5 {
		t.Fatalf("Advance ran %d ticks, want 5", n)
	}
	// a@1s b@1.5s a@2s, then a and b both at 3s: a was started first.
	if s := strings.Join(got, ""); s != "abaab" {
		t.Fatalf("ticks ran as %q, want abaab", s)
	}
	stopB()
	got = nil
	c.Advance(3 * time.Second)
	if s := strings.Join(got, ""); s != "aaa" {
		t.Fatalf("after stop: %q", s)
	}
}
