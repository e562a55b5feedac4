package worker

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
)

// pluginRequest is a one-file request of plugin id whose faults go to
// faults.
func pluginRequest(id string, faults *noteLog) contrib.ActivationRequest {
	req := contrib.ActivationRequest{Plugin: id, Generation: "g1", Entry: "plugin.star",
		Bundle: fstest.MapFS{"plugin.star": {Data: []byte("contribute()\n")}}}
	if faults != nil {
		req.Fault = faults.Add
	}
	return req
}

// pooled is a fake-worker activator with workers worker processes (0: one
// per plugin) and its host-wide notes.
func pooled(mode string, workers int) (*Activator, *noteLog) {
	notes := &noteLog{}
	return New(Options{
		Command: func() (*exec.Cmd, error) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), fakeMode+"="+mode)
			return cmd, nil
		},
		Bridge:      func(contrib.ActivationRequest, Caller) Bridge { return &testBridge{} },
		MemoryLimit: 1 << 30,
		Workers:     workers,
		Note:        notes.Add,
	}), notes
}

// activateAll activates plugins ids with a and returns their instances
// and the worker pid each runs in.
func activateAll(t *testing.T, a *Activator, faults *noteLog, ids ...string) ([]contrib.Instance, []int) {
	t.Helper()
	var insts []contrib.Instance
	var pids []int
	for _, id := range ids {
		inst, err := a.Activate(context.Background(), pluginRequest(id, faults))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(inst.Close)
		pid, err := strconv.Atoi(call(inst, "pid").Text)
		if err != nil {
			t.Fatalf("%s: pid: %v", id, err)
		}
		insts, pids = append(insts, inst), append(pids, pid)
	}
	return insts, pids
}

func distinct(pids []int) int {
	s := slices.Clone(pids)
	slices.Sort(s)
	return len(slices.Compact(s))
}

// Issue 26, point 2: plugins share a pool of workers, each assigned to the
// one with the fewest plugins; fewer plugins than workers each get their
// own.
func TestH26_2_PluginsShareThePool(t *testing.T) {
	a, _ := pooled("serve", 2)
	_, pids := activateAll(t, a, nil, "acme.a", "acme.b", "acme.c", "acme.d")
	if n := distinct(pids); n != 2 {
		t.Fatalf("4 plugins ran in %d workers (%v), want 2", n, pids)
	}
	if pids[0] == pids[1] || pids[0] != pids[2] || pids[1] != pids[3] {
		t.Fatalf("pids %v: want each plugin in the least-loaded worker (a, c | b, d)", pids)
	}
	b, _ := pooled("serve", 8)
	if _, pids := activateAll(t, b, nil, "acme.a", "acme.b", "acme.c"); distinct(pids) != 3 {
		t.Fatalf("3 plugins with 8 workers ran in %v, want a worker each", pids)
	}
}

// A worker killed by one plugin takes its isolation group down: every
// plugin of the group is faulted, and each fault names the whole group.
// A plugin in another worker keeps serving.
func TestH26_2_GroupFaultNamesEveryPlugin(t *testing.T) {
	a, _ := pooled("serve", 2)
	faults := &noteLog{}
	insts, _ := activateAll(t, a, faults, "acme.a", "acme.b", "acme.c")
	// acme.a and acme.c share a worker; acme.b has the other.
	res := call(insts[0], "exit")
	if res.Err == nil || !strings.Contains(res.Err.Message, "panic: fake crash") ||
		!strings.Contains(res.Err.Message, "; it served the isolation group acme.a, acme.c: all 2 went down with it") {
		t.Fatalf("the call in flight = %+v, want the cause naming the group", res)
	}
	var got []string
	for _, d := range faults.All() {
		got = append(got, d.Plugin)
		if d.Code != contrib.WorkerFailed || !strings.Contains(d.Message, "isolation group acme.a, acme.c") {
			t.Errorf("fault %+v does not name the group", d)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"acme.a", "acme.c"}) {
		t.Fatalf("faulted %v, want acme.a and acme.c", got)
	}
	if r := call(insts[2], "x"); r.Err == nil {
		t.Fatalf("acme.c answered after its worker died: %+v", r)
	}
	if r := call(insts[1], "x"); r.Text != "ok x" {
		t.Fatalf("acme.b in the other worker = %+v, want it serving", r)
	}
	// The next activation in the group starts a fresh worker.
	inst, err := a.Activate(context.Background(), pluginRequest("acme.a", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	if r := call(inst, "x"); r.Text != "ok x" {
		t.Fatalf("after the fault: %+v", r)
	}
}

// A worker alone with its plugin keeps today's message: no group is named.
func TestH26_2_LoneWorkerFaultNamesNoGroup(t *testing.T) {
	a, _ := pooled("serve", 8)
	faults := &noteLog{}
	insts, _ := activateAll(t, a, faults, "acme.a")
	res := call(insts[0], "exit")
	if res.Err == nil || strings.Contains(res.Err.Message, "isolation group") {
		t.Fatalf("result = %+v, want the cause without a group", res)
	}
}

// Generations come and go in slots: a reload's new generation runs in the
// plugin's worker beside the old one, and the worker ends with the last
// generation it serves.
func TestH26_2_SlotsAndWorkerLifetime(t *testing.T) {
	a, _ := pooled("serve", 0)
	insts, pids := activateAll(t, a, nil, "acme.a", "acme.a")
	if pids[0] != pids[1] {
		t.Fatalf("two generations of acme.a ran in workers %v, want one", pids)
	}
	insts[0].Close()
	if r := call(insts[1], "x"); r.Text != "ok x" {
		t.Fatalf("the new generation after the old one closed = %+v", r)
	}
	if r := call(insts[0], "x"); r.Err == nil {
		t.Fatalf("the closed generation answered: %+v", r)
	}
	insts[1].Close()
	for i := 0; alive(pids[0]); i++ {
		if i == 1000 {
			t.Fatalf("worker %d outlived its last generation", pids[0])
		}
		<-timeAfterMs(10)
	}
}

// Issue 26, point 3: a worker that answers the handshake with why it cannot
// serve is reported with that cause, not the ServeWorkerIfChild hint, and
// when no worker could start the activator says why.
func TestH26_3_WorkerRefusalNamesTheCause(t *testing.T) {
	a, _ := pooled("refuse", 0)
	err := a.Compile(pluginRequest("acme.a", nil))
	var ae *contrib.ActivationError
	if !errors.As(err, &ae) || !strings.Contains(ae.Error(), "cannot apply memory_limit: operation not permitted") ||
		strings.Contains(ae.Error(), "ServeWorkerIfChild") {
		t.Fatalf("Compile = %v, want the worker's cause without the hint", err)
	}
	if err := a.Unstartable(); err == nil || !strings.Contains(err.Error(), "cannot apply memory_limit") {
		t.Fatalf("Unstartable = %v, want the cause", err)
	}
}

// The Go runtime failing in the child before main is its own cause: no hint.
func TestH26_3_RuntimeFailureGetsNoHint(t *testing.T) {
	a, _ := pooled("runtime-fatal", 0)
	err := a.Compile(pluginRequest("acme.a", nil))
	if err == nil || !strings.Contains(err.Error(), "fatal error: runtime: cannot reserve arena") || strings.Contains(err.Error(), "ServeWorkerIfChild") {
		t.Fatalf("Compile = %v, want the runtime's error without the hint", err)
	}
}

// A binary that never answers the handshake gets the hint, and no worker
// could start; one worker that did start is enough for Unstartable to be nil.
func TestH26_3_UnstartableOnlyWhenNoneStarted(t *testing.T) {
	a := New(Options{
		Command: func() (*exec.Cmd, error) { return exec.Command("true"), nil },
		Bridge:  func(contrib.ActivationRequest, Caller) Bridge { return &testBridge{} },
	})
	_ = a.Compile(pluginRequest("acme.a", nil))
	if err := a.Unstartable(); err == nil || !strings.Contains(err.Error(), "ServeWorkerIfChild") {
		t.Fatalf("Unstartable = %v, want the hint of a binary that never answered", err)
	}
	b, _ := pooled("serve", 0)
	activateAll(t, b, nil, "acme.a")
	if err := b.Unstartable(); err != nil {
		t.Fatalf("Unstartable after a worker served = %v", err)
	}
}

// Workers clamped by an inherited hard limit say so once for the host,
// however many start.
func TestH26_3_ClampSaidOnce(t *testing.T) {
	a, notes := pooled("clamped", 0)
	activateAll(t, a, nil, "acme.a", "acme.b", "acme.c")
	ns := notes.All()
	if len(ns) != 1 || ns[0].Code != contrib.MemoryLimitClamped || !strings.Contains(ns[0].Message, "inherited hard address-space limit") {
		t.Fatalf("notes = %+v, want one MemoryLimitClamped", ns)
	}
}

func timeAfterMs(ms int) <-chan time.Time { return time.After(time.Duration(ms) * time.Millisecond) }

// A call in flight when a memory kill took its isolation group down reads
// the limit and the group once, in one set of parentheses.
func TestH26_2_GroupCallMessageReadsOnce(t *testing.T) {
	group := "; it served the isolation group acme.bomb, acme.p01: all 2 went down with it"
	f := &Failure{Code: contrib.ResourceExhausted, Message: "memory_limit 64MiB exceeded: the worker was killed" + group, group: group}
	got := (&process{}).blame(f, "tool boom2", &pausableDeadline{})
	want := "tool boom2: the worker running this call was killed (memory_limit 64MiB exceeded; it served the isolation group acme.bomb, acme.p01: all 2 went down with it)"
	if got.Message != want || got.Cause != contrib.CauseWorkerFailed {
		t.Fatalf("blame = %q (%s), want %q (worker_failed)", got.Message, got.Cause, want)
	}
}
