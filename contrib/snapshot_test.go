package contrib

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

func TestDC4_RevokedSnapshotYieldsToolUnavailable(t *testing.T) {
	var calls atomic.Int32
	tool := okTool("echo")
	tool.Run = ToolFunc(func(context.Context, any) Result { calls.Add(1); return Result{Text: "hi"} })
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme", tool))

	snap := r.Tools(Work)
	if res := snap.Invoke(context.Background(), "echo", nil); !res.OK() || res.Text != "hi" {
		t.Fatalf("before revoke: %+v", res)
	}
	if !r.Revoke("acme", "g1") {
		t.Fatal("Revoke reported nothing removed")
	}
	res := snap.Invoke(context.Background(), "echo", json.RawMessage(`{}`))
	if res.OK() || res.Err.Code != ErrToolUnavailable {
		t.Fatalf("after revoke: %+v, want tool_unavailable", res)
	}
	if calls.Load() != 1 {
		t.Errorf("tool ran %d times, want once", calls.Load())
	}

	// Once the plugin serves a generation with the tool again, the proxy
	// follows it (AT2: a tool present in both generations never vanishes).
	publish(r, "acme", "g2", 0, SourceDev, stage(t, "acme", tool))
	if res := snap.Invoke(context.Background(), "echo", nil); !res.OK() {
		t.Errorf("old snapshot after republish: %+v, want it to follow to g2", res)
	}
	if res := r.Tools(Work).Invoke(context.Background(), "echo", nil); !res.OK() {
		t.Errorf("new snapshot: %+v", res)
	}
}

func TestDC26_ClosedGateYieldsToolUnavailable(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	p := publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme", okTool("echo")))
	snap := r.Tools(Work)
	p.Gate.Close() // admission closed, not yet revoked
	if res := snap.Invoke(context.Background(), "echo", nil); res.OK() || res.Err.Code != ErrToolUnavailable {
		t.Errorf("closed gate: %+v, want tool_unavailable", res)
	}
}

func TestDC4_UnknownToolAndPanic(t *testing.T) {
	boom := okTool("boom")
	boom.Run = ToolFunc(func(context.Context, any) Result { panic("secret detail") })
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme", boom))
	snap := r.Tools(Work)
	if res := snap.Invoke(context.Background(), "nope", nil); res.Err == nil || res.Err.Code != ErrUnknownTool {
		t.Errorf("unknown tool: %+v", res)
	}
	res := snap.Invoke(context.Background(), "boom", nil)
	if res.Err == nil || res.Err.Code != ErrToolFailed || strings.Contains(res.Err.Message, "secret") {
		t.Errorf("panicking tool: %+v, want tool_failed without the panic text", res)
	}
}

func TestDC4_ArgumentsValidatedBeforeTheCall(t *testing.T) {
	var calls atomic.Int32
	var gotArgs any
	tool := okTool("search")
	tool.Parameters = json.RawMessage(`{
		"type": "object",
		"properties": {
			"query": {"type": "string"},
			"limit": {"type": "integer", "minimum": 1}
		},
		"required": ["query"],
		"additionalProperties": false
	}`)
	tool.Run = ToolFunc(func(_ context.Context, args any) Result {
		calls.Add(1)
		gotArgs = args
		return Result{Text: "ok"}
	})
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme", tool))
	snap := r.Tools(Plan)

	tests := []struct {
		args  string
		parts []string // fragments the message must contain
	}{
		{`{"query": 5}`, []string{"/query"}},
		{`{"limit": 0}`, []string{"/limit", "query"}},
		{`{"query": "x", "limit": "ten", "extra": true}`, []string{"/limit", "extra"}},
		{`[1, 2]`, []string{"/"}},
		{`{"query": `, []string{"not valid JSON"}},
		{`{"query": "x"} {"query": "y"}`, []string{"not valid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res := snap.Invoke(context.Background(), "search", json.RawMessage(tt.args))
			if res.OK() || res.Err.Code != ErrInvalidArguments {
				t.Errorf("args %s: %+v, want invalid_arguments", tt.args, res)
				return
			}
			for _, p := range tt.parts {
				if !strings.Contains(res.Err.Message, p) {
					t.Errorf("args %s: message %q does not name %q", tt.args, res.Err.Message, p)
				}
			}
			if strings.Contains(res.Err.Message, "\n") {
				t.Errorf("args %s: message spans lines: %q", tt.args, res.Err.Message)
			}
		})
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("the ToolFunc ran %d times on invalid arguments", n)
	}

	res := snap.Invoke(context.Background(), "search", json.RawMessage(`{"query": "x", "limit": 3}`))
	if !res.OK() || calls.Load() != 1 {
		t.Fatalf("valid call: %+v (calls %d)", res, calls.Load())
	}
	m, ok := gotArgs.(map[string]any)
	if !ok || m["query"] != "x" || m["limit"] != json.Number("3") {
		t.Errorf("decoded args = %#v, want query x and limit json.Number(3)", gotArgs)
	}
}

func TestDC4_InvalidArgumentsOfRevokedTool(t *testing.T) {
	// Validation comes first, as Invoke documents: the copied schema
	// still answers after revocation.
	tool := okTool("search")
	tool.Parameters = json.RawMessage(`{"type":"object","required":["q"]}`)
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme", tool))
	snap := r.Tools(Work)
	r.Revoke("acme", "g1")
	if res := snap.Invoke(context.Background(), "search", json.RawMessage(`{}`)); res.Err == nil || res.Err.Code != ErrInvalidArguments {
		t.Errorf("got %+v, want invalid_arguments", res)
	}
	if res := snap.Invoke(context.Background(), "search", json.RawMessage(`{"q":1}`)); res.Err == nil || res.Err.Code != ErrToolUnavailable {
		t.Errorf("got %+v, want tool_unavailable", res)
	}
}

func TestDC6_TrailingCloserIsNotJSON(t *testing.T) {
	var calls atomic.Int32
	tool := okTool("search")
	tool.Run = ToolFunc(func(context.Context, any) Result { calls.Add(1); return Result{Text: "ok"} })
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme", tool))
	for _, args := range []string{`{"q":"x"}}`, `{}]`} {
		res := r.Tools(Work).Invoke(context.Background(), "search", json.RawMessage(args))
		if res.Err == nil || res.Err.Code != ErrInvalidArguments {
			t.Errorf("args %s: %+v, want invalid_arguments", args, res)
		}
	}
	if calls.Load() != 0 {
		t.Errorf("the tool ran on malformed JSON")
	}
}

func TestDC4_ExternalToolsValidated(t *testing.T) {
	var calls atomic.Int32
	x := external("fetch", Work)
	x.Parameters = []byte(`{"type":"object","required":["url"]}`)
	x.Run = func(context.Context, any) Result { calls.Add(1); return Result{Text: "fetched"} }
	bad := external("broken", Work)
	bad.Parameters = []byte(`{"type": 7}`)
	var log testkit.Log[Diagnostic]
	r := NewRegistry(RegistryOptions{External: []ExternalTool{x, bad}, Notes: log.Add})
	if got := names(r.Tools(Work).List()); len(got) != 1 || got[0] != "fetch" {
		t.Errorf("tools = %v, want [fetch]", got)
	}
	if n := len(log.Where(coded(ToolSchemaInvalid))); n != 1 {
		t.Errorf("ToolSchemaInvalid notes = %d, want 1", n)
	}
	snap := r.Tools(Work)
	if res := snap.Invoke(context.Background(), "fetch", nil); res.Err == nil || res.Err.Code != ErrInvalidArguments {
		t.Errorf("missing url: %+v", res)
	}
	if res := snap.Invoke(context.Background(), "fetch", json.RawMessage(`{"url":"u"}`)); !res.OK() || calls.Load() != 1 {
		t.Errorf("valid call: %+v", res)
	}
}

func TestDC4_ConcurrentInvokeWhilePublishing(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	tool := okTool("echo")
	tool.Parameters = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	tool.Run = ToolFunc(func(ctx context.Context, args any) Result {
		return Result{Text: fmt.Sprint(args.(map[string]any)["n"])}
	})
	set := stage(t, "acme", tool)
	first := publish(r, "acme", "g0", 0, SourceDev, set)
	early := r.Tools(Work) // an old snapshot, revoked during the test

	const workers, rounds = 8, 200
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var okCount, unavailable atomic.Int64
	errs := make(chan string, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
					runtime.Gosched() // leave the publisher room on small machines
				}
				snap := early
				if i%2 == 0 {
					if snap = r.Tools(Work); snap.Len() == 0 {
						continue // nothing published at this instant
					}
				}
				res := snap.Invoke(context.Background(), "echo", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)))
				switch {
				case res.OK() && res.Text == fmt.Sprint(i):
					okCount.Add(1)
				case res.Err != nil && res.Err.Code == ErrToolUnavailable:
					unavailable.Add(1)
				default:
					select {
					case errs <- fmt.Sprintf("worker %d: %+v", w, res):
					default:
					}
					return
				}
			}
		}(w)
	}

	prev := first
	for i := 1; i <= rounds; i++ {
		r.Revoke(prev.Plugin, prev.Generation)
		prev.Gate.Close()
		<-prev.Gate.Drained()
		prev = publish(r, "acme", fmt.Sprintf("g%d", i), 0, SourceDev, set)
		// Let the workers call into this generation before revoking it.
		for before, deadline := okCount.Load(), time.Now().Add(5*time.Millisecond); okCount.Load() == before && time.Now().Before(deadline); {
			time.Sleep(50 * time.Microsecond)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if okCount.Load() == 0 || unavailable.Load() == 0 {
		t.Errorf("ok=%d unavailable=%d; want both outcomes exercised", okCount.Load(), unavailable.Load())
	}
}
