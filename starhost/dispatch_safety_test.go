package starhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// reservedCodes are the codes the host itself produces for a call; a
// plugin's error(code, message) may not carry one.
var reservedCodes = []starhost.Code{
	starhost.ErrUnknownTool, starhost.ErrInvalidArguments, starhost.ErrToolUnavailable, starhost.ErrCancelled,
	starhost.ErrToolInterrupted, starhost.ErrToolFailed, starhost.ErrInvalidOutput, starhost.ErrContentTooLarge,
	starhost.ErrCallDenied, starhost.ErrPointFailed,
}

// TestDC6_PluginCannotSpoofHostCodes: a plugin tool returning
// error("tool_unavailable", …) (or any code the host produces) ends as
// tool_failed saying the code is reserved, at the plugin's position, so a
// host never retries a call that ran; its own codes pass unchanged.
func TestDC6_PluginCannotSpoofHostCodes(t *testing.T) {
	h, _, _ := pointsHost(t, starhost.Options{Steps: 1 << 30}, map[string]string{"spoof": `
def run(ctx, args):
    return error(args["code"], "pretend")

contribute(tools = [tool(name = "spoof", catalogs = "work", read_only = True, run = run,
    parameters = {"type": "object", "properties": {"code": {"type": "string"}}})])
`})
	call := func(code string) starhost.ToolResult {
		args, _ := json.Marshal(map[string]string{"code": code})
		return h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: "spoof", Arguments: args}, nil).Result
	}
	for _, code := range reservedCodes {
		res := call(string(code))
		if !errors.Is(res.Err(), starhost.ErrToolFailed) {
			t.Errorf("error(%q, …): %+v; want tool_failed", code, res)
			continue
		}
		if code != starhost.ErrToolFailed && errors.Is(res.Err(), code) {
			t.Errorf("error(%q, …) still carries the host's code: %+v", code, res)
		}
		want := `error("` + string(code) + `", ...): the code is reserved for the host at plugin.star:3:17`
		if res.Error.Message != want {
			t.Errorf("error(%q, …): message %q; want %q", code, res.Error.Message, want)
		}
	}
	if res := call("not_found"); res.Error == nil || res.Error.Code != "not_found" || res.Error.Message != "pretend" {
		t.Errorf("a plugin's own code: %+v; want not_found: pretend", res)
	}
}

// TestDC3_NormalizerCannotClaimHostCodes: a normalizer entry may pass the
// call's own code on, but a result whose error carries a code the host
// reserves, where the call had none, fails the entry (point_failed).
func TestDC3_NormalizerCannotClaimHostCodes(t *testing.T) {
	h, _, _ := pointsHost(t, starhost.Options{Steps: 1 << 30}, map[string]string{"norm": `
def normalize(ctx, rec):
    if rec["call"]["name"] == "ok":
        return {"error": {"code": "tool_unavailable", "message": "retry me"}}
    return rec["result"]

contribute(
    tools = [tool(name = "ok", catalogs = "work", read_only = True, run = lambda ctx, args: "ran"),
             tool(name = "unk", catalogs = "work", read_only = True, run = lambda ctx, args: error("mine", "x"))],
    dispatch_normalizers = [dispatch_normalizer(run = normalize)],
)
`})
	res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: "ok"}, nil).Result
	if errors.Is(res.Err(), starhost.ErrToolUnavailable) || !errors.Is(res.Err(), starhost.ErrPointFailed) {
		t.Errorf("a normalizer claiming tool_unavailable: %+v; want point_failed", res)
	}
	if res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "2", Name: "unk"}, nil).Result; res.Error == nil || res.Error.Code != "mine" {
		t.Errorf("a normalizer passing the call's own code on: %+v; want mine", res)
	}
}

// TestHK1_DispatchRunsOnlyOfferedTools: Dispatch checks calls against the
// catalog the session's mode offers (CatalogFor): in work mode a plan-only
// tool the model was never offered is unknown_tool before the policy or
// the approver is asked, and in plan mode a work-only tool is.
func TestHK1_DispatchRunsOnlyOfferedTools(t *testing.T) {
	var asked []string
	h, _, _ := pointsHost(t, starhost.Options{Points: starhost.PointDefaults{
		Policy: func(_ context.Context, _ string, call starhost.ToolCall, _ string) string {
			asked = append(asked, "policy "+call.Name)
			return ""
		},
		Approve: func(_ context.Context, req starhost.ApprovalRequest) starhost.Approval {
			asked = append(asked, "approve "+req.Call.Name)
			return starhost.Approval{Approved: true}
		},
	}}, map[string]string{"cat": `
ok = lambda ctx, args: "ran"
contribute(tools = [
    tool(name = "planner", catalogs = "plan", read_only = True, run = ok),
    tool(name = "worker", catalogs = "work", read_only = True, run = ok),
])
`})
	offered := func() []string {
		var names []string
		for _, ti := range h.Session().Thread("t").Tools(bg, starhost.CatalogFor(h.Session().Facts().Mode)).List() {
			if ti.Plugin == "acme.cat" {
				names = append(names, ti.Name)
			}
		}
		return names
	}
	for _, mode := range []string{"", starhost.PlanMode} {
		h.Session().SetFacts(starhost.Facts{Mode: mode})
		run, skip := "worker", "planner"
		if mode == starhost.PlanMode {
			run, skip = skip, run
		}
		if got := strings.Join(offered(), ","); got != run {
			t.Fatalf("mode %q offers %s; want %s", mode, got, run)
		}
		asked = nil
		if res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: skip}, nil); res.Approved || !errors.Is(res.Result.Err(), starhost.ErrUnknownTool) {
			t.Errorf("mode %q: %s, never offered, ran: %+v; want unknown_tool", mode, skip, res.Result)
		}
		// An Invoker that would run any catalog's tool is not asked either.
		invoked := false
		loose := func(ctx context.Context, call starhost.ToolCall) (starhost.ToolResult, bool) {
			invoked = true
			return h.Session().Thread("t").Tools(ctx, starhost.PlanAndWork).Invoke(ctx, call.Name, call.Arguments), true
		}
		res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: skip}, loose)
		if invoked || !errors.Is(res.Result.Err(), starhost.ErrUnknownTool) || !strings.Contains(res.Result.Error.Message, "is not offered in this mode") {
			t.Errorf("mode %q: %s through an Invoker: invoked %v, %+v; want unknown_tool, not offered", mode, skip, invoked, res.Result)
		}
		if len(asked) != 0 {
			t.Errorf("mode %q: asked about %s, never offered: %v", mode, skip, asked)
		}
		if res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "2", Name: run}, nil); res.Result.Text != "ran" {
			t.Errorf("mode %q: %s: %+v; want ran", mode, run, res.Result)
		}
	}
}

// TestHK1_BuiltinToolWithoutInvoker: a built-in tool (Options.BuiltinTools)
// dispatched with a nil Invoker is unknown_tool saying that the host's
// Invoker runs it, not that the snapshot lacks it.
func TestHK1_BuiltinToolWithoutInvoker(t *testing.T) {
	h, _, _ := pointsHost(t, starhost.Options{BuiltinTools: []string{"bash"}, Points: starhost.PointDefaults{
		Approve: func(context.Context, starhost.ApprovalRequest) starhost.Approval {
			return starhost.Approval{Approved: true}
		},
	}}, map[string]string{"x": `contribute()`})
	res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: "bash", Arguments: json.RawMessage(`{"cmd":"ls"}`)}, nil)
	if !errors.Is(res.Result.Err(), starhost.ErrUnknownTool) || !strings.Contains(res.Result.Error.Message, `"bash" is one of the host's built-in tools`) ||
		!strings.Contains(res.Result.Error.Message, "Invoker") {
		t.Fatalf("bash with a nil Invoker: %+v; want unknown_tool naming the built-in tool and the Invoker", res.Result)
	}
	ran := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "2", Name: "bash"}, func(context.Context, starhost.ToolCall) (starhost.ToolResult, bool) {
		return starhost.ToolResult{Text: "ran"}, true
	})
	if ran.Result.Text != "ran" {
		t.Fatalf("bash with an Invoker: %+v", ran.Result)
	}
}

// TestCC10_ClassifyRejectsNonJSON: Classify's error is for arguments that
// are not JSON, and it wraps ErrInvalidArguments; empty and null are {}.
func TestCC10_ClassifyRejectsNonJSON(t *testing.T) {
	h, _, _ := pointsHost(t, starhost.Options{}, map[string]string{"x": `contribute()`})
	for _, args := range []string{"not json at all", `{"a": 1} trailing`, `{"a":`} {
		if _, err := h.Session().Classify(bg, "lint", json.RawMessage(args)); !errors.Is(err, starhost.ErrInvalidArguments) {
			t.Errorf("Classify(lint, %q) = %v; want invalid_arguments", args, err)
		}
	}
	for _, args := range []string{"", "null", `{"a": 1}`} {
		if cl, err := h.Session().Classify(bg, "lint", json.RawMessage(args)); err != nil || cl.Known {
			t.Errorf("Classify(lint, %q) = %+v, %v; want unknown, nil", args, cl, err)
		}
	}
}
