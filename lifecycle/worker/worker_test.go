package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// The test binary doubles as a fake worker (and as a host for the
// host-death test): the protocol and process handling are tested here
// without Starlark, which this package must not import.
const fakeMode = "CRYSTAL_STAR_FAKE_WORKER"

func TestMain(m *testing.M) {
	switch os.Getenv(fakeMode) {
	case "":
		os.Exit(m.Run())
	case "host":
		fakeHost()
	default:
		fakeWorker(os.Getenv(fakeMode))
	}
}

// fakeWorker speaks the protocol: compile and activate stage one tool
// "t"; the tool's arguments say how to misbehave.
func fakeWorker(mode string) {
	switch mode {
	case "exit-at-start":
		fmt.Fprintln(os.Stderr, "fake worker: refusing to start")
		os.Exit(3)
	case "garbage-at-start":
		os.Stdout.Write([]byte("\x00\x00\x00\x03abc"))
		select {}
	case "echo":
		// The raw floor: 64-byte messages echoed over the pipes, no
		// protocol, blocking reads (BenchmarkH26CallBreakdown).
		buf := make([]byte, 64)
		for {
			if _, err := io.ReadFull(os.Stdin, buf); err != nil {
				os.Exit(0)
			}
			if _, err := os.Stdout.Write(buf); err != nil {
				os.Exit(0)
			}
		}
	case "refuse":
		// A worker that cannot apply its memory limit answers the
		// handshake with why, then exits.
		fmt.Fprintln(os.Stderr, "crystal-star worker: cannot apply memory_limit: operation not permitted")
		_ = wire.NewConn(os.Stdin, os.Stdout, nil, nil).Notify(wire.NotifyHello,
			wire.Hello{Version: wire.Version, Failed: "cannot apply memory_limit: operation not permitted"})
		os.Exit(3)
	case "runtime-fatal":
		// The Go runtime failing before main (no handshake possible).
		fmt.Fprintln(os.Stderr, "fatal error: runtime: cannot reserve arena virtual address space")
		os.Exit(2)
	}
	conn := wire.NewConn(os.Stdin, os.Stdout, func(ctx context.Context, method string, body []byte) (any, error) {
		method, _ = wire.SplitSlot(method)
		switch method {
		case wire.MethodPing:
			return nil, nil
		case wire.MethodCompile:
			return wire.Activated{}, nil
		case wire.MethodActivate:
			return wire.Activated{Tools: []contrib.Tool{{Name: "t", Catalogs: contrib.Work}}}, nil
		case wire.MethodDryRun:
			return fakeDryRun(body)
		case wire.MethodTool:
			var in wire.Invoke
			_ = wire.DecodeInvoke(body, &in)
			var args map[string]string
			_ = json.Unmarshal(in.Args, &args)
			switch args["do"] {
			case "hang":
				hanging.Add(1)
				select {} // ignores cancellation: only a kill ends it
			case "oom", "oom-after-2":
				for args["do"] == "oom-after-2" && hanging.Load() < 2 {
					runtime.Gosched() // the two hanging calls are in flight first
				}
				fmt.Fprintln(os.Stderr, "fatal error: out of memory")
				os.Exit(2)
			case "exit":
				fmt.Fprintln(os.Stderr, "panic: fake crash")
				os.Exit(2)
			case "garbage":
				os.Stdout.Write([]byte("\x00\x00\x00\x0b\x09not a frame"))
				select {}
			case "badjson":
				return json.RawMessage("{not json"), nil // a well-formed frame, a malformed reply
			case "pid":
				return contrib.Result{Text: strconv.Itoa(os.Getpid())}, nil
			}
			return contrib.Result{Text: "ok " + args["do"]}, nil
		}
		return nil, fmt.Errorf("unknown %s", method)
	}, nil)
	hello := wire.Hello{Version: wire.Version, PID: os.Getpid()}
	if mode == "other-build" {
		hello.Version = "1" // a worker of an earlier build
	}
	if mode == "clamped" {
		hello.Clamped = "the inherited hard address-space limit is below memory_limit; workers run under it"
	}
	_ = conn.Notify(wire.NotifyHello, hello)
	if bell := wire.BellFromEnv(); bell != nil {
		conn.RingOn(bell)
	}
	_ = conn.Serve()
	os.Exit(0)
}

// hanging counts the fake worker's calls that hang.
var hanging atomic.Int32

// fakeHost activates one fake worker, prints its pid, and waits to be
// killed.
func fakeHost() {
	a := testActivator(os.Getenv("FAKE_HOST_WORKER"), 0, nil)
	inst, err := a.Activate(context.Background(), testRequest(nil))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	res := inst.Set().Tools[0].Run.Run(context.Background(), map[string]any{"do": "pid"})
	fmt.Println(res.Text)
	select {}
}

// testActivator starts the test binary as a fake worker in mode.
func testActivator(mode string, timeout time.Duration, notes *noteLog) *Activator {
	return New(Options{
		Command: func() (*exec.Cmd, error) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), fakeMode+"="+mode, os.Getenv("H26_WORKER_ENV"))
			return cmd, nil
		},
		Bridge:          func(contrib.ActivationRequest, Caller) Bridge { return &testBridge{notes: notes} },
		CallbackTimeout: timeout,
		MemoryLimit:     1 << 30,
	})
}

type testBridge struct{ notes *noteLog }

func (b *testBridge) Handle(context.Context, string, []byte) (any, error) { return nil, nil }
func (b *testBridge) Notify(_ context.Context, method string, body []byte) {
	if b.notes != nil {
		var d contrib.Diagnostic
		_ = json.Unmarshal(body, &d)
		b.notes.Add(d)
	}
}
func (b *testBridge) Close() {}

// noteLog records the notes and faults a worker reports.
type noteLog = testkit.Log[contrib.Diagnostic]

func testRequest(faults *noteLog) contrib.ActivationRequest {
	req := contrib.ActivationRequest{Plugin: "acme.fake", Generation: "g1", Entry: "plugin.star",
		Bundle: fstest.MapFS{"plugin.star": {Data: []byte("contribute()\n")}}}
	if faults != nil {
		req.Fault = faults.Add
	}
	return req
}

// activate starts a fake worker and returns its instance and fault log.
func activate(t *testing.T, mode string, timeout time.Duration) (contrib.Instance, *noteLog) {
	t.Helper()
	faults := &noteLog{}
	a := testActivator(mode, timeout, nil)
	req := testRequest(faults)
	if err := a.Compile(req); err != nil {
		t.Fatal(err)
	}
	inst, err := a.Activate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inst.Close)
	return inst, faults
}

func call(inst contrib.Instance, do string) contrib.Result {
	return inst.Set().Tools[0].Run.Run(context.Background(), map[string]any{"do": do})
}

// wantFault checks the one fault a dead worker reports and the message of
// the call that was in flight.
func wantFault(t *testing.T, res contrib.Result, faults *noteLog, code contrib.Code, msg string) {
	t.Helper()
	if res.Err == nil || res.Err.Code != contrib.ErrToolFailed || !strings.Contains(res.Err.Message, msg) {
		t.Fatalf("result = %+v, want tool_failed containing %q", res, msg)
	}
	fs := faults.All()
	if len(fs) != 1 || fs[0].Code != code || fs[0].Plugin != "acme.fake" || !strings.Contains(fs[0].Message, msg) {
		t.Fatalf("faults = %+v, want one %s containing %q", fs, code, msg)
	}
}

func TestRoundTrip(t *testing.T) {
	inst, faults := activate(t, "serve", 0)
	if res := call(inst, "x"); res.Text != "ok x" {
		t.Fatalf("result = %+v", res)
	}
	inst.Close()
	if fs := faults.All(); len(fs) != 0 {
		t.Fatalf("a closed worker faulted: %+v", fs)
	}
	if res := call(inst, "x"); res.Err == nil {
		t.Fatalf("a call after Close succeeded: %+v", res)
	}
}

func TestKilledWorker(t *testing.T) {
	inst, faults := activate(t, "serve", 0)
	pid, _ := strconv.Atoi(call(inst, "pid").Text)
	done := make(chan contrib.Result)
	go func() { done <- call(inst, "hang") }()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wantFault(t, <-done, faults, contrib.WorkerFailed, "the worker exited (signal: killed)")
	if res := call(inst, "x"); res.Err == nil || !strings.Contains(res.Err.Message, "signal: killed") {
		t.Fatalf("a call to a dead worker = %+v", res)
	}
}

func TestCrashingWorker(t *testing.T) {
	inst, faults := activate(t, "serve", 0)
	wantFault(t, call(inst, "exit"), faults, contrib.WorkerFailed, "the worker exited (exit status 2): panic: fake crash")
}

// Every call in flight ends with the cause, and the plugin faults once.
func TestCallsInFlightEndWithTheCause(t *testing.T) {
	inst, faults := activate(t, "serve", 0)
	results := make(chan contrib.Result, 3)
	for range 3 {
		go func() { results <- call(inst, "hang") }()
	}
	wantFault(t, call(inst, "exit"), faults, contrib.WorkerFailed, "panic: fake crash")
	for range 3 {
		if res := <-results; res.Err == nil || !strings.Contains(res.Err.Message, "the worker exited (exit status 2): panic: fake crash") {
			t.Errorf("a call in flight = %+v, want the cause", res)
		}
	}
	if n := len(faults.All()); n != 1 {
		t.Errorf("%d faults, want 1", n)
	}
}

func TestHungWorker(t *testing.T) {
	inst, faults := activate(t, "serve", 2*time.Second)
	wantFault(t, call(inst, "hang"), faults, contrib.CallbackTimeout, "tool t: callback_timeout 2s exceeded: the worker was killed")
}

func TestGarbageOnTheChannel(t *testing.T) {
	inst, faults := activate(t, "serve", 0)
	wantFault(t, call(inst, "garbage"), faults, contrib.WorkerFailed, "garbage on the worker channel: unknown frame kind 9")
}

func TestGarbageInAReply(t *testing.T) {
	inst, faults := activate(t, "serve", 0)
	wantFault(t, call(inst, "badjson"), faults, contrib.WorkerFailed, "garbage on the worker channel: reply to tool")
}

func TestWorkerExitsDuringStart(t *testing.T) {
	for mode, msg := range map[string]string{
		"exit-at-start":    "the worker exited (exit status 3): fake worker: refusing to start",
		"garbage-at-start": "garbage on the worker channel",
	} {
		a := testActivator(mode, 0, nil)
		err := a.Compile(testRequest(nil))
		var ae *contrib.ActivationError
		if !errors.As(err, &ae) || len(ae.Diagnostics) != 1 || ae.Diagnostics[0].Code != contrib.WorkerFailed ||
			!strings.Contains(ae.Diagnostics[0].Message, msg) {
			t.Errorf("%s: Compile = %v, want WorkerFailed containing %q", mode, err, msg)
		}
		_, err = a.Activate(context.Background(), testRequest(nil))
		if !errors.As(err, &ae) || ae.Compile || ae.Diagnostics[0].Code != contrib.WorkerFailed {
			t.Errorf("%s: Activate = %v, want a WorkerFailed execution failure", mode, err)
		}
	}
}

// TestBinaryNotServingSaysWhy: a host binary whose main does not call
// starhost.ServeWorkerIfChild runs its own program when re-executed as a
// worker and never answers; the failure says what to do. A worker that has
// answered once does not get the hint.
func TestBinaryNotServingSaysWhy(t *testing.T) {
	a := New(Options{
		Command:         func() (*exec.Cmd, error) { return exec.Command("true"), nil },
		Bridge:          func(contrib.ActivationRequest, Caller) Bridge { return &testBridge{} },
		CallbackTimeout: 5 * time.Second,
	})
	err := a.Compile(testRequest(nil))
	var ae *contrib.ActivationError
	if !errors.As(err, &ae) || len(ae.Diagnostics) != 1 || !strings.Contains(ae.Diagnostics[0].Message, "ServeWorkerIfChild") {
		t.Fatalf("Compile = %v, want a failure naming ServeWorkerIfChild", err)
	}
	// A worker that served and was then killed gets no such hint.
	inst, _ := activate(t, "serve", 0)
	pid, _ := strconv.Atoi(call(inst, "pid").Text)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if res := call(inst, "x"); res.Err == nil || strings.Contains(res.Err.Message, "ServeWorkerIfChild") {
		t.Fatalf("a call to a killed worker that had served = %+v, want no hint", res)
	}
}

// TestHostDies kills a host with SIGKILL and checks that its worker does
// not outlive it (the parent-death signal, then the closed stdin).
func TestHostDies(t *testing.T) {
	host := exec.Command(os.Args[0])
	host.Env = append(os.Environ(), fakeMode+"=host", "FAKE_HOST_WORKER=serve")
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil || pid <= 0 {
		t.Fatalf("reading the worker's pid: %v", err)
	}
	if !alive(pid) {
		t.Fatalf("worker %d is not running while its host is", pid)
	}
	_ = host.Process.Kill()
	_ = host.Wait()
	for i := 0; alive(pid); i++ {
		if i == 1000 {
			t.Fatalf("worker %d outlived its host", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie waiting for its reaper does not).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// The host's credentials never reach a worker's environment.
func TestWorkerEnvironment(t *testing.T) {
	got := workerEnv([]string{"OPENAI_API_KEY=sk-secret", "GOMAXPROCS=2", "HOME=/root", "TMPDIR=/tmp", "GODEBUG=x=1"})
	if strings.Join(got, " ") != "GOMAXPROCS=2 TMPDIR=/tmp GODEBUG=x=1" {
		t.Fatalf("workerEnv = %q", got)
	}
}
