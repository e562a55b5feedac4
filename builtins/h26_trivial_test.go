package builtins

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// TestH26_4_FromJSONKeysSorted: FromJSON inserts object keys in sorted
// order both below and above the eight keys it sorts without allocating.
func TestH26_4_FromJSONKeysSorted(t *testing.T) {
	for _, n := range []int{0, 1, 3, 8, 9, 20} {
		m := map[string]any{}
		for i := range n {
			m[fmt.Sprintf("k%02d", n-i)] = json.Number(fmt.Sprint(i))
		}
		d := FromJSON(m).(*starlark.Dict)
		keys := d.Keys()
		if len(keys) != n {
			t.Fatalf("%d keys: got %d", n, len(keys))
		}
		for i := 1; i < len(keys); i++ {
			if keys[i-1].(starlark.String) >= keys[i].(starlark.String) {
				t.Errorf("%d keys: not sorted: %v", n, keys)
			}
		}
	}
}

// TestH26_4_ToolCallAllocations: a trivial tool call (one string argument,
// the argument returned) allocates its ctx object and argument tuple
// together, a run state, the arguments' dict and its two strings, and the
// function's frame — and no thread: a callback's thread is reused from an
// earlier run of its generation (it allocated 12 times with a fresh
// thread, its locals map, frame and stack per call).
func TestH26_4_ToolCallAllocations(t *testing.T) {
	const src = `def echo(ctx, args):
    return args["text"]

contribute(tools = [tool(name = "echo", catalogs = "work", run = echo)])
`
	inst, err := NewActivator(Options{}).Activate(context.Background(), request(src, &noteLog{}))
	if err != nil {
		t.Fatal(err)
	}
	run := inst.Set().Tools[0].Run
	args := map[string]any{"text": "hello"}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(200, func() {
		if res := run.Run(ctx, args); res.Err != nil || res.Text != "hello" {
			t.Fatalf("result %+v", res)
		}
	})
	if allocs > 6 && !raceEnabled { // under the race detector, sync.Pool drops a quarter of what it is given
		t.Errorf("a trivial tool call allocates %.1f times; want at most 6", allocs)
	}
}

// TestH26_4_ReusedThreadStartsFresh: a reused thread gives each run the
// whole step budget, a run cancelled for its steps or by its caller leaves
// nothing behind for the next, and print() still reaches the plugin's
// notes.
func TestH26_4_ReusedThreadStartsFresh(t *testing.T) {
	const src = `def work(ctx, args):
    n = 0
    for i in range(args["n"]):
        n += i
    if args.get("say"):
        print("said")
    return str(n)

contribute(tools = [tool(name = "work", catalogs = "work", run = work)])
`
	log := &noteLog{}
	inst, err := NewActivator(Options{Steps: 10_000}).Activate(context.Background(), request(src, log))
	if err != nil {
		t.Fatal(err)
	}
	work := inst.Set().Tools[0].Run.Run
	ok := func(step string) {
		t.Helper()
		// 1,000 iterations exceed the budget, so 500 take more than
		// half of it: two runs on one count of steps would fail.
		if res := work(context.Background(), map[string]any{"n": 500}); res.Err != nil || res.Text != "124750" {
			t.Fatalf("%s: result %+v, want 124750", step, res)
		}
	}
	for i := range 3 {
		ok(fmt.Sprintf("run %d", i+1))
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if res := work(context.Background(), map[string]any{"n": 1000}); res.Err == nil || res.Err.Cause != contrib.CauseStepBudget {
		t.Fatalf("1,000 iterations: %+v, want the step budget exhausted", res.Err)
	}
	ok("after a run out of steps")
	if res := work(cancelled, map[string]any{"n": 500}); res.Err == nil {
		t.Fatalf("a run with a cancelled context succeeded: %+v", res)
	}
	ok("after a cancelled run")
	if res := work(context.Background(), map[string]any{"n": 1, "say": true}); res.Err != nil {
		t.Fatal(res.Err)
	}
	said := false
	for _, d := range log.All() {
		said = said || (d.Code == contrib.PrintNote && strings.Contains(d.Message, "said"))
	}
	if !said {
		t.Errorf("print() on a reused thread did not reach the notes: %v", log.All())
	}
}

// TestH26_4_WatchdogLeavesEndedRunsAlone: the watchdog cancels a run only
// while it is registered. Its tick works on a copy of the running runs; a
// run that ended (disarm) after the copy was taken keeps its thread — which
// the next run of its generation reuses — uncancelled, whether the caller's
// context ended, the timeout passed or the heap is over budget.
func TestH26_4_WatchdogLeavesEndedRunsAlone(t *testing.T) {
	w := &runWatchdog{running: map[*runState]watched{}}
	th, st := &starlark.Thread{}, &runState{}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	w.running[st] = watched{ctx: ended, th: th, st: st, start: time.Now().Add(-time.Hour), timeout: time.Millisecond, limit: 1}
	batch, _ := w.snapshot(nil, 0)
	w.disarm(st)
	w.mu.Lock()
	cancelLate(w, batch, time.Now())
	cancelOver(w, batch, 1<<40, st)
	w.mu.Unlock()
	if _, err := starlark.ExecFile(th, "next.star", "x = 1\n", nil); err != nil {
		t.Errorf("the next run on the thread fails: %v", err)
	}
	if st.cause.Load() != causeNone {
		t.Errorf("the ended run was given cause %d", st.cause.Load())
	}
	// Registered, the same run is cancelled (the check above is not vacuous).
	w.running[st] = batch[0]
	w.mu.Lock()
	cancelLate(w, batch, time.Now())
	w.mu.Unlock()
	if _, err := starlark.ExecFile(th, "next.star", "x = 1\n", nil); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("a registered run past its end was not cancelled: %v", err)
	}
}
