package starhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

const codesPlugin = `
def spin(ctx, args):
    ctx.progress(1)
    n = 0
    while True:
        n += 1

contribute(tools = [
    tool(name = "echo", catalogs = "work", run = lambda ctx, args: args["text"],
        parameters = {"type": "object", "properties": {"text": {"type": "string"}}}),
    tool(name = "spin", catalogs = "work", run = spin),
    tool(name = "boom", catalogs = "work", run = lambda ctx, args: fail("boom")),
    tool(name = "missing", catalogs = "work", run = lambda ctx, args: error("not_found", "no such item")),
    tool(name = "gone", catalogs = "work", run = lambda ctx, args: "here"),
])
`

// codeCase is a tool result and the code it must carry.
type codeCase struct {
	name string
	res  starhost.ToolResult
	code starhost.Code
}

// TestDC6_ToolResultErrIsItsCode: every code the host produces for a tool
// call — and a plugin's own error(code, message) — reaches the caller as a
// *ToolError that errors.Is matches against its Code (and no other), through
// ToolResult.Err, whether the call went through ToolSnapshot.Invoke or
// Dispatch.
func TestDC6_ToolResultErrIsItsCode(t *testing.T) {
	lint := starhost.ExternalTool{Name: "lint", Catalogs: starhost.Work, Run: func(context.Context, any) starhost.ToolResult {
		return starhost.ToolResult{Error: &starhost.ToolError{Code: "lint_failed", Message: "two findings"}}
	}}
	h, _, root := pointsHost(t, starhost.Options{Steps: 1 << 40, CleanupTimeout: time.Millisecond, External: []starhost.ExternalTool{lint},
		Points: starhost.PointDefaults{Policy: func(_ context.Context, _ string, call starhost.ToolCall, _ string) string {
			if call.Name == "boom" {
				return "no explosions"
			}
			return ""
		}, Approve: func(context.Context, starhost.ApprovalRequest) starhost.Approval {
			return starhost.Approval{Approved: true}
		}},
	}, map[string]string{"codes": codesPlugin})
	snap := h.Session().Thread("t").Tools(bg, starhost.Work)
	done, cancel := context.WithCancel(bg)
	cancel()
	dispatch := func(name, args string) starhost.ToolResult {
		return h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: name, Arguments: json.RawMessage(args)}, nil).Result
	}
	cases := []codeCase{
		{"unknown tool", snap.Invoke(bg, "nope", nil), starhost.ErrUnknownTool},
		{"arguments that break the schema", snap.Invoke(bg, "echo", json.RawMessage(`{"text": 1}`)), starhost.ErrInvalidArguments},
		{"a done context", snap.Invoke(done, "echo", nil), starhost.ErrCancelled},
		{"fail()", snap.Invoke(bg, "boom", nil), starhost.ErrToolFailed},
		{"the policy", dispatch("boom", `{}`), starhost.ErrCallDenied},
		{"dispatch of an unknown tool", dispatch("nope", `null`), starhost.ErrUnknownTool},
		{"dispatch of malformed arguments", dispatch("echo", `{"text":`), starhost.ErrInvalidArguments},
		{"a plugin's error(code, message)", snap.Invoke(bg, "missing", nil), starhost.Code("not_found")},
		{"an external tool's own code, through Dispatch", dispatch("lint", ``), starhost.Code("lint_failed")},
	}

	if res := snap.Invoke(bg, "echo", json.RawMessage(`{"text": "hi"}`)); res.Err() != nil || !res.OK() || res.Text != "hi" {
		t.Errorf("a successful call: %+v, Err() = %v; want nil", res, res.Err())
	}

	// A call running when its generation retires past the cleanup timeout.
	dir := filepath.Join(root, "codes")
	entered := make(chan struct{})
	interrupted := make(chan starhost.ToolResult)
	go func() {
		ctx := starhost.WithProgress(bg, func(float64, float64, string) { close(entered) })
		interrupted <- snap.Invoke(ctx, "spin", nil)
	}()
	<-entered
	testkit.WriteTree(t, dir, map[string]string{"plugin.star": codesPlugin + "\n# v2\n"})
	if err := h.Reload(bg, dir); err != nil {
		t.Fatalf("reload v2: %v", err)
	}
	cases = append(cases, codeCase{"a generation retired mid-call", <-interrupted, starhost.ErrToolInterrupted})

	// A tool its plugin no longer offers, through a snapshot that listed it.
	testkit.WriteTree(t, dir, map[string]string{"plugin.star": "contribute(tools = [tool(name = \"echo\", catalogs = \"work\", run = lambda ctx, args: \"\")])\n"})
	if err := h.Reload(bg, dir); err != nil {
		t.Fatalf("reload v3: %v", err)
	}
	cases = append(cases, codeCase{"a tool its plugin no longer offers", snap.Invoke(bg, "gone", nil), starhost.ErrToolUnavailable})

	for _, c := range cases {
		err := c.res.Err()
		if !errors.Is(err, c.code) {
			t.Errorf("%s: %+v; errors.Is(res.Err(), %s) is false", c.name, c.res.Error, c.code)
			continue
		}
		var te *starhost.ToolError
		if !errors.As(err, &te) || te != c.res.Error || te.Code != c.code || te.Message == "" {
			t.Errorf("%s: errors.As gives %+v, want the result's ToolError with a message", c.name, te)
		}
		if errors.Is(err, starhost.ErrNoPlugin) || c.code != starhost.ErrToolFailed && errors.Is(err, starhost.ErrToolFailed) {
			t.Errorf("%s: %v matches another code", c.name, err)
		}
		if !errors.Is(err, &starhost.ToolError{Code: c.code}) {
			t.Errorf("%s: errors.Is with a *ToolError of the same code is false", c.name)
		}
		if err.Error() != string(c.code)+": "+te.Message {
			t.Errorf("%s: Error() = %q", c.name, err.Error())
		}
	}
}
