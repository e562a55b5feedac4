package remote_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/layout"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/executor"
	"github.com/crystal-star/crystal-star/starhost/remote"
	"github.com/crystal-star/crystal-star/trust"
)

func TestMain(m *testing.M) {
	starhost.ServeWorkerIfChild()
	os.Exit(m.Run())
}

// plugin writes a plugin acme.grep whose remote tool answers "v<version>:"
// and the pattern; "slow" spins until its context ends or 2e6 steps;
// "fail" fails with its own code.
func plugin(t testing.TB, dir, version string) {
	t.Helper()
	files := map[string]string{
		"plugin.toml": "id = \"acme.grep\"\nversion = \"1.0.0\"\n",
		"plugin.star": fmt.Sprintf(`
def grep(ctx, args):
    return "v%s:" + args.get("pattern", "")

def slow(ctx, args):
    n = 0
    for i in range(4000000):
        n += 1
    return "slow done"

def fail(ctx, args):
    return error("no_match", "nothing matches " + args.get("pattern", ""))

contribute(tools = [
    tool(name = "grep_remote", catalogs = "work", run = grep, remote = True),
    tool(name = "slow_remote", catalogs = "work", run = slow, remote = True),
    tool(name = "fail_remote", catalogs = "work", run = fail, remote = True),
])
`, version),
	}
	for name, body := range files {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// grant grants the bundle in dir in the executor home's trust file.
func grant(t testing.TB, home, dir string) remote.Archive {
	t.Helper()
	a, err := remote.Pack(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.NewStore(layout.Paths{Home: home}.Trust()).Grant(a.Plugin, a.Fingerprint, time.Now()); err != nil {
		t.Fatal(err)
	}
	return a
}

type testExecutor struct {
	home string
	x    *executor.Executor
	srv  *httptest.Server
}

func startExecutor(t testing.TB) *testExecutor {
	t.Helper()
	home := t.TempDir()
	x, err := executor.New(executor.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(x.Handler())
	t.Cleanup(func() { srv.Close(); _ = x.Shutdown(context.Background()) })
	return &testExecutor{home: home, x: x, srv: srv}
}

// metric returns the value of a metrics line (name with labels), or "".
func (e *testExecutor) metric(t *testing.T, name string) string {
	t.Helper()
	resp, err := http.Get(e.srv.URL + remote.MetricsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return v
		}
	}
	return ""
}

// startHost starts a host with the dev plugin dir routed to the executors.
func startHost(t testing.TB, dir string, execs ...*testExecutor) *starhost.Host {
	t.Helper()
	home := t.TempDir()
	var cfg strings.Builder
	var names []string
	for i, e := range execs {
		fmt.Fprintf(&cfg, "[executors.e%d]\nurl = %q\n\n", i, e.srv.URL)
		names = append(names, fmt.Sprintf("%q", fmt.Sprintf("e%d", i)))
	}
	fmt.Fprintf(&cfg, "[plugins.\"acme.grep\"]\nexecute = [%s]\n", strings.Join(names, ", "))
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := starhost.New(starhost.Options{Home: home, Workspace: t.TempDir(), Dev: []string{dir}, Remote: remote.New(remote.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h
}

func call(h *starhost.Host, ctx context.Context, tool, args string) starhost.ToolResult {
	return mainThread(h).Tools(ctx, starhost.Work).Invoke(ctx, tool, json.RawMessage(args))
}

func TestH28_4_HostUploadsAndSpreadsCalls(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "grep")
	plugin(t, dir, "1")
	a, b := startExecutor(t), startExecutor(t)
	grant(t, a.home, dir)
	grant(t, b.home, dir)
	h := startHost(t, dir, a, b)
	for i := range 10 {
		res := call(h, context.Background(), "grep_remote", fmt.Sprintf(`{"pattern":"p%d"}`, i))
		if !res.OK() || res.Text != fmt.Sprintf("v1:p%d", i) {
			t.Fatalf("call %d = %+v", i, res)
		}
	}
	if got := a.metric(t, `crystal_star_executor_calls_total{code="ok"}`); got != "5" {
		t.Errorf("executor a ran %q calls, want 5", got)
	}
	if got := b.metric(t, `crystal_star_executor_calls_total{code="ok"}`); got != "5" {
		t.Errorf("executor b ran %q calls, want 5", got)
	}
}

func TestH28_4_HotReloadRepacksAndSwitchesMakeBeforeBreak(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "grep")
	plugin(t, dir, "1")
	x := startExecutor(t)
	old := grant(t, x.home, dir)
	h := startHost(t, dir, x)
	snap := mainThread(h).Tools(context.Background(), starhost.Work) // taken before the save
	if res := snap.Invoke(context.Background(), "grep_remote", json.RawMessage(`{"pattern":"a"}`)); res.Text != "v1:a" {
		t.Fatalf("before the save: %+v", res)
	}
	plugin(t, dir, "2")
	next := grant(t, x.home, dir)
	if err := h.Reload(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if res := call(h, context.Background(), "grep_remote", `{"pattern":"b"}`); res.Text != "v2:b" {
		t.Fatalf("after the save: %+v", res)
	}
	// Both bundles are on the executor: the new one was uploaded before
	// the switch, and the old one is not taken away from calls in flight.
	for _, a := range []remote.Archive{old, next} {
		resp, err := http.Get(x.srv.URL + remote.BundlesPath + a.FileName())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("executor holds %s: %d", a.Fingerprint, resp.StatusCode)
		}
	}
	if got := x.metric(t, "crystal_star_executor_bundles_active"); got != "2" {
		t.Errorf("bundles_active = %q, want 2", got)
	}
}

func TestH28_4_CallIDRunsOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "grep")
	plugin(t, dir, "1")
	x := startExecutor(t)
	a := grant(t, x.home, dir)
	resp, err := http.DefaultClient.Do(mustRequest(t, http.MethodPut, x.srv.URL+remote.BundlesPath+a.FileName(), a.Data))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %v %v", resp, err)
	}
	resp.Body.Close()
	send := func(id string) string {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"grep_remote","arguments":{"pattern":"x"},"_meta":{%q:%q,%q:%q}}}`,
			remote.MetaBundle, a.Fingerprint, remote.MetaCallID, id)
		req := mustRequest(t, http.MethodPost, x.srv.URL+remote.MCPPath, []byte(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return string(data)
	}
	first, again := send("call-1"), send("call-1")
	if !strings.Contains(first, "v1:x") || first != again {
		t.Fatalf("first %s, again %s", first, again)
	}
	send("call-2")
	if got := x.metric(t, `crystal_star_executor_calls_total{code="ok"}`); got != "3" {
		t.Errorf("calls answered %q, want 3", got)
	}
	if got := x.metric(t, "crystal_star_executor_duplicate_calls_total"); got != "1" {
		t.Errorf("duplicates %q, want 1 (answered, not run)", got)
	}
	ledger, _ := os.ReadFile(filepath.Join(x.home, "executor", "calls.log"))
	if string(ledger) != "call-1\ncall-2\n" {
		t.Errorf("ledger %q: each call id runs once", ledger)
	}
	// A new executor over the same home remembers: the call began in an
	// earlier run and is not run again.
	y, err := executor.New(executor.Options{Home: x.home})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(y.Handler())
	defer srv.Close()
	x.srv.URL, srv.URL = srv.URL, x.srv.URL
	defer func() { x.srv.URL = srv.URL }()
	if got := send("call-1"); !strings.Contains(got, "tool_interrupted") {
		t.Errorf("after a restart, call-1 = %s; want tool_interrupted, not a second run", got)
	}
}

func mustRequest(t *testing.T, method, url string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestH28_4_CodesACallerCanActOn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "grep")
	plugin(t, dir, "1")
	x := startExecutor(t)
	grant(t, x.home, dir)
	h := startHost(t, dir, x)

	// A plugin's own error keeps its code and message across the wire.
	if res := call(h, context.Background(), "fail_remote", `{"pattern":"x"}`); res.OK() ||
		res.Error.Code != "no_match" || res.Error.Message != "nothing matches x" {
		t.Errorf("plugin error = %+v; want no_match: nothing matches x", res.Error)
	}
	if got := x.metric(t, `crystal_star_executor_calls_total{code="no_match"}`); got != "1" {
		t.Errorf("executor counted %q no_match calls, want 1", got)
	}

	// cancelled: the caller's context ends during the call.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan starhost.ToolResult)
	go func() { done <- call(h, ctx, "slow_remote", `{}`) }()
	waitInFlight(t, x)
	cancel()
	if res := <-done; res.OK() || res.Error.Code != starhost.ErrCancelled {
		t.Errorf("cancelled call = %+v", res)
	}

	// tool_interrupted: the executor is lost during the call.
	for x.metric(t, "crystal_star_executor_calls_in_flight") != "0" { // the cancelled run ends
		time.Sleep(5 * time.Millisecond)
	}
	go func() { done <- call(h, context.Background(), "slow_remote", `{}`) }()
	waitInFlight(t, x)
	x.srv.Listener.Close() // the executor is gone: no retry reaches it
	x.srv.CloseClientConnections()
	if res := <-done; res.OK() || res.Error.Code != starhost.ErrToolInterrupted {
		t.Errorf("lost executor = %+v", res)
	}

	// tool_unavailable: no executor can take the call, with the reason.
	res := call(h, context.Background(), "grep_remote", `{}`)
	if res.OK() || res.Error.Code != starhost.ErrToolUnavailable || !strings.Contains(res.Error.Message, "executor e0") {
		t.Errorf("no executor = %+v", res)
	}
}

// waitInFlight waits until the executor runs a call.
func waitInFlight(t *testing.T, x *testExecutor) {
	t.Helper()
	for x.metric(t, "crystal_star_executor_calls_in_flight") != "1" {
		time.Sleep(5 * time.Millisecond)
	}
}

func TestH28_3_DrainFinishesCallsInFlight(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "grep")
	plugin(t, dir, "1")
	x := startExecutor(t)
	grant(t, x.home, dir)
	h := startHost(t, dir, x)
	done := make(chan starhost.ToolResult)
	go func() { done <- call(h, context.Background(), "slow_remote", `{}`) }()
	waitInFlight(t, x)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = x.x.Shutdown(context.Background()) }()
	for {
		resp, err := http.Get(x.srv.URL + remote.ReadyPath)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if res := call(h, context.Background(), "grep_remote", `{}`); res.OK() || !strings.Contains(res.Error.Message, "executor_draining") {
		t.Errorf("a call while draining = %+v; want refused, never started", res)
	}
	if res := <-done; !res.OK() || res.Text != "slow done" {
		t.Errorf("the call in flight = %+v; want it finished", res)
	}
	wg.Wait()
}
