package starhost_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestH24_3_ProvidedToolsObeyRestrictions: the tools a tool_provider offers
// for a planning are in the one list restrictions decide on (they see their
// names), Tools offers, Dispatch runs and the memory target receives: a
// restriction naming a provided tool and a static one withholds both
// everywhere, and a provided tool nobody withholds reaches the memory
// target too.
func TestH24_3_ProvidedToolsObeyRestrictions(t *testing.T) {
	approve := func(context.Context, starhost.ApprovalRequest) starhost.Approval {
		return starhost.Approval{Approved: true}
	}
	h, _, _ := pointsHost(t, starhost.Options{Points: starhost.PointDefaults{Approve: approve}}, map[string]string{"a": `
def provide(ctx, req):
    return [
        tool(name = "dyn", catalogs = "work", read_only = True, run = lambda ctx, args: "dyn ran"),
        tool(name = "kept", catalogs = "work", read_only = True, run = lambda ctx, args: "kept ran"),
    ]

def restrict(ctx, req):
    # Withholds what it is shown, so a name it never saw stays.
    return [n for n in req["tools"] if n in ("dyn", "stat")]

def memory(ctx, req):
    return "TOOLS " + json.encode(req["inputs"]["tools"])

contribute(
    tools = [
        tool(name = "stat", catalogs = "work", read_only = True, run = lambda ctx, args: "stat ran"),
        tool(name = "other", catalogs = "work", read_only = True, run = lambda ctx, args: "other ran"),
    ],
    tool_providers = [tool_provider(run = provide)],
    tool_restrictions = [tool_restriction(run = restrict)],
    context_transforms = [context_transform(replace = TARGET_MEMORY, run = memory)],
)`})
	var offered []string
	for _, ti := range h.Session().Thread("t").Tools(bg, starhost.Work).List() {
		offered = append(offered, ti.Name)
	}
	if slices.Contains(offered, "dyn") || slices.Contains(offered, "stat") ||
		!slices.Contains(offered, "kept") || !slices.Contains(offered, "other") {
		t.Errorf("Tools offers %v; want kept and other, neither dyn nor stat", offered)
	}
	for name, want := range map[string]string{"dyn": "", "stat": "", "kept": "kept ran"} {
		res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: name}, nil).Result
		if want == "" && (res.Error == nil || res.Error.Code != starhost.ErrUnknownTool) {
			t.Errorf("Dispatch %s = %+v; want unknown_tool: the restriction withholds it", name, res)
		}
		if want != "" && res.Text != want {
			t.Errorf("Dispatch %s = %+v; want %q", name, res, want)
		}
	}
	text, ok := strings.CutPrefix(h.Session().Thread("t").AssemblePrompt(bg).Text, "TOOLS ")
	var tools []string
	if err := json.Unmarshal([]byte(text), &tools); !ok || err != nil {
		t.Fatalf("prompt %q: %v", text, err)
	}
	if !slices.Equal(tools, offered) {
		t.Errorf("the memory target receives %v; Tools offers %v: one list", tools, offered)
	}
}

// TestH24_3_OneToolList: a thread's tools come from one function
// (toolsFor, planning.go), so no new path can offer, run or describe tools
// without the provided ones or past the restrictions. The registry's raw
// catalog is read elsewhere only for the environment snapshot (env.go),
// which lists the embedder's external tools, not a thread's.
func TestH24_3_OneToolList(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == "planning.go" || name == "env.go" {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "registry.Tools(") {
			t.Errorf("%s reads the registry's catalog itself; take a thread's tools from toolsFor", name)
		}
	}
}

// TestH24_10_CauseReachesTheEmbedder: the cause of a failed call reaches
// ToolResult.Error.Cause from the host process and across a worker's
// channel alike; a plugin's own failure has none; Dispatch keeps it
// through a normalizer that keeps the code.
func TestH24_10_CauseReachesTheEmbedder(t *testing.T) {
	const src = `
def spin(ctx, args):
    n = 0
    while True:
        n += 1

def normalize(ctx, req):
    r = req["result"]
    if r["error"]:
        return {"text": "", "data": None, "error": {"code": r["error"]["code"], "message": "normalized: " + r["error"]["message"]}}
    return None

contribute(
    tools = [
        tool(name = "spin", catalogs = "work", read_only = True, run = spin),
        tool(name = "raise", catalogs = "work", read_only = True, run = lambda ctx, args: fail("broken")),
    ],
    dispatch_normalizers = [dispatch_normalizer(run = normalize)],
)`
	for _, iso := range []string{starhost.IsolationInProcess, starhost.IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			approve := func(context.Context, starhost.ApprovalRequest) starhost.Approval {
				return starhost.Approval{Approved: true}
			}
			h, _, _ := pointsHost(t, starhost.Options{Isolation: iso, Steps: 100000, Points: starhost.PointDefaults{Approve: approve}},
				map[string]string{"a": src})
			snap := h.Session().Thread("t").Tools(bg, starhost.Work)
			if res := snap.Invoke(bg, "spin", nil); res.Error == nil || res.Error.Cause != starhost.CauseStepBudget {
				t.Errorf("spin: %+v; want cause step_budget", res.Error)
			}
			if res := snap.Invoke(bg, "raise", nil); res.Error == nil || res.Error.Code != starhost.ErrToolFailed || res.Error.Cause != "" {
				t.Errorf("raise: %+v; want tool_failed without a cause", res.Error)
			}
			res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: "spin"}, nil).Result
			if res.Error == nil || res.Error.Cause != starhost.CauseStepBudget || !strings.HasPrefix(res.Error.Message, "normalized: ") {
				t.Errorf("Dispatch spin: %+v; want the normalized message with cause step_budget", res.Error)
			}
		})
	}
}
