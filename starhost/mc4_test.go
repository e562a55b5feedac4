package starhost_test

import (
	"context"
	"errors"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestMC4_ToolFieldsAndDispatch: a tool definition carries a namespace
// (canonical name ns.name, model-facing name unchanged), read_only and
// requires_approval; the dispatch pipeline consults both: with no approver
// only calls that require approval are refused, plan mode refuses tools
// that are not read-only, and a hint never lowers the host's verdict.
func TestMC4_ToolFieldsAndDispatch(t *testing.T) {
	h, _, _ := pointsHost(t, starhost.Options{
		Classifications: map[string]starhost.Classification{"classified": {Risk: "low", Permission: "allow"}},
	}, map[string]string{
		"a": `
ok = lambda ctx, args: "ok"
contribute(tools = [
    tool(name = "look", catalogs = "plan_and_work", read_only = True, namespace = "acme.fs", run = ok),
    tool(name = "change", catalogs = "work", run = ok),
    tool(name = "sensitive", catalogs = "work", read_only = True, requires_approval = True, run = ok),
    tool(name = "trusted", catalogs = "plan_and_work", requires_approval = False, run = ok),
    tool(name = "classified", catalogs = "work", requires_approval = True, run = ok),
])`,
	})
	infos := map[string]starhost.ToolInfo{}
	for _, ti := range h.Session().Thread("").Tools(context.Background(), starhost.PlanAndWork).List() {
		infos[ti.Name] = ti
	}
	if ti := infos["look"]; ti.CanonicalName != "acme.fs.look" || ti.Namespace != "acme.fs" || !ti.ReadOnly || ti.RequiresApproval {
		t.Errorf("look = %+v; want canonical acme.fs.look, read-only, no approval", ti)
	}
	if ti := infos["change"]; ti.CanonicalName != "acme.a.change" || !ti.RequiresApproval {
		t.Errorf("change = %+v; want the plugin id as namespace and approval required by default", ti)
	}

	// No approver: the default approver approves exactly what needs no prompt.
	for name, approved := range map[string]bool{"look": true, "change": false, "sensitive": false, "trusted": true, "classified": false} {
		res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "c", Name: name}, nil)
		if res.Approved != approved {
			t.Errorf("%s: approved %v (%+v); want %v", name, res.Approved, res.Result.Error, approved)
		}
	}
	if res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "c", Name: "look"}, nil); res.Classification.Risk != "low" || res.Result.Text != "ok" {
		t.Errorf("look: %+v; want low risk and the result", res)
	}

	// Plan mode: read-only tools only.
	h.Session().SetFacts(starhost.Facts{Mode: starhost.PlanMode})
	if res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "c", Name: "trusted"}, nil); res.Approved || res.Result.Error == nil ||
		res.Result.Error.Code != starhost.ErrCallDenied || res.Result.Error.Message != "plan mode runs only read-only tools; acme.a.trusted is not read_only" {
		t.Errorf("trusted in plan mode: %+v; want call_denied", res.Result)
	}
	// A tool plan mode does not offer (catalogs "work") is not called at all.
	if res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "c", Name: "change"}, nil); !errors.Is(res.Result.Err(), starhost.ErrUnknownTool) {
		t.Errorf("change (work only) in plan mode: %+v; want unknown_tool", res.Result)
	}
	if res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "c", Name: "look"}, nil); !res.Approved {
		t.Errorf("look in plan mode refused: %+v", res.Result.Error)
	}
}
