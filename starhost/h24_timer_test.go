package starhost_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// timerHost starts a host with one development plugin whose 1s timer runs
// src's tick(ctx), on a manual clock; faulted receives the plugin's
// "faulted" events.
func timerHost(t *testing.T, src string) (*starhost.Host, *starhost.ManualClock, chan starhost.Event) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ticker")
	testkit.WriteTree(t, dir, map[string]string{
		"plugin.toml": "id = \"acme.ticker\"\nversion = \"1.0.0\"\n",
		"plugin.star": src + "\ncontribute(timers = [timer(every = \"1s\", run = tick)],\n" +
			"    tools = [tool(name = \"ping\", catalogs = \"work\", run = lambda ctx, args: \"pong\")])\n",
	})
	clock := starhost.NewManualClock()
	faulted := make(chan starhost.Event, 16)
	h, err := starhost.New(starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Dev: []string{dir}, Clock: clock,
		Events: func(e starhost.Event) {
			if e.Kind == "faulted" {
				faulted <- e
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, clock, faulted
}

// TestH24_9_TimerFailingEveryTickFaults proves a timer whose run fails on
// every tick faults its plugin at the fifth failure in a row (issue 24,
// point 9; DC24): not before, its timers stop, and its tools answer
// tool_unavailable with the reason.
func TestH24_9_TimerFailingEveryTickFaults(t *testing.T) {
	h, clock, faulted := timerHost(t, "def tick(ctx):\n    fail(\"backend down\")\n")
	clock.Advance(4 * time.Second)
	select {
	case e := <-faulted:
		t.Fatalf("faulted after 4 failed runs: %+v", e)
	default:
	}
	if got := clock.Advance(time.Second); got != 1 {
		t.Fatalf("the fifth second ran %d ticks, want 1", got)
	}
	<-faulted // the fault is delivered asynchronously; the test's deadline bounds the wait
	var info starhost.PluginInfo
	for _, p := range h.Plugins() {
		if p.ID == "acme.ticker" {
			info = p
		}
	}
	if info.State != starhost.StateFaulted {
		t.Fatalf("state %s, want faulted", info.State)
	}
	found := false
	for _, d := range info.Diagnostics {
		if d.Code == "BackgroundWorkFailed" && strings.Contains(d.Message, "timer every 1s failed 5 times in a row") &&
			strings.Contains(d.Message, "backend down") && d.Pos.Line > 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("no BackgroundWorkFailed diagnostic at the timer: %+v", info.Diagnostics)
	}
	if got := clock.Advance(10 * time.Second); got != 0 {
		t.Errorf("a faulted plugin's timer ran %d more times", got)
	}
	res := h.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(context.Background(), "ping", nil)
	if !errors.Is(res.Err(), starhost.ErrToolUnavailable) {
		t.Errorf("ping after the fault: %v; want tool_unavailable", res.Err())
	}
}

// TestH24_9_TimerFailingNowAndThenOnlyWarns proves a success starts the
// count again: a timer failing four runs in five stays active.
func TestH24_9_TimerFailingNowAndThenOnlyWarns(t *testing.T) {
	h, clock, faulted := timerHost(t, `
def tick(ctx):
    n = ctx.store.get("n", 0) + 1
    ctx.store["n"] = n
    if n % 5 != 0:
        fail("flaky %d" % n)
`)
	if got := clock.Advance(20 * time.Second); got != 20 {
		t.Fatalf("ran %d ticks, want 20", got)
	}
	select {
	case e := <-faulted:
		t.Fatalf("faulted although every fifth run succeeded: %+v", e)
	default:
	}
	res := h.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(context.Background(), "ping", nil)
	if !res.OK() {
		t.Errorf("ping: %v", res.Err())
	}
}
