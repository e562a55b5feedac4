package starhost_test

import (
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

const mc2Source = `
def provide(ctx, req):
    ctx.store["plannings"] = ctx.store.get("plannings", 0) + 1
    n = ctx.store["plannings"]
    tools = [
        tool(name = "for_" + req["catalog"], catalogs = "plan_and_work", read_only = True,
             run = lambda ctx, args: "planning %d, mode %s, v1" % (n, req["mode"])),
        tool(name = "static", catalogs = "work", run = lambda ctx, args: "shadowed"),
        tool(name = "bad name", catalogs = "work", run = lambda ctx, args: "x"),
    ]
    if req["mode"] == "plan":
        return tools[:1]
    return tools

contribute(
    tools = [tool(name = "static", catalogs = "work", run = lambda ctx, args: "static")],
    tool_providers = [tool_provider(run = provide)],
)
`

// TestMC2_ToolsPerPlanning: a tool_provider is asked once per tool planning
// with the planning context and offers tools valid for that planning; they
// are validated like static tools, cached in the planning's snapshot only,
// and reached through the same proxies (a reload answers tool_unavailable).
func TestMC2_ToolsPerPlanning(t *testing.T) {
	h, notes, root := pointsHost(t, starhost.Options{}, map[string]string{"a": mc2Source})
	h.Session().SetFacts(starhost.Facts{Mode: "work"})
	plan := h.Session().Thread("t").Tools(bg, starhost.Work)
	names := []string{}
	for _, ti := range plan.List() {
		names = append(names, ti.Name+"/"+ti.Plugin)
	}
	if len(names) != 3 || names[0] != "static/acme.a" || names[1] != "for_work/acme.a" || names[2] != "skill/" {
		t.Fatalf("planning tools %v; want the static tool, the provided one, then skill (CC6)", names)
	}
	// The planning's snapshot is its cache: calling twice asks nobody again.
	for range 2 {
		if r := plan.Invoke(bg, "for_work", nil); r.Text != "planning 1, mode work, v1" {
			t.Fatalf("for_work = %+v", r)
		}
	}
	if r := plan.Invoke(bg, "static", nil); r.Text != "static" {
		t.Errorf("static = %+v; the static tool wins its name", r)
	}
	if len(notes.with(contrib.ToolNameInvalid)) != 1 || len(notes.with(contrib.ToolNameTaken)) != 1 {
		t.Errorf("notes: %d ToolNameInvalid, %d ToolNameTaken; want one each",
			len(notes.with(contrib.ToolNameInvalid)), len(notes.with(contrib.ToolNameTaken)))
	}
	// A new planning asks again, with its own context.
	h.Session().SetFacts(starhost.Facts{Mode: "plan"})
	if r := h.Session().Thread("t").Tools(bg, starhost.Plan).Invoke(bg, "for_plan", nil); r.Text != "planning 2, mode plan, v1" {
		t.Errorf("second planning: %+v", r)
	}
	// Reload: the old planning's proxy answers tool_unavailable.
	testkit.WriteTree(t, filepath.Join(root, "a"), map[string]string{"plugin.star": mc2Source + "\n# v2\n"})
	if err := h.Reload(bg, filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	if r := plan.Invoke(bg, "for_work", nil); r.Error == nil || r.Error.Code != starhost.ErrToolUnavailable {
		t.Errorf("old planning after reload: %+v; want tool_unavailable", r)
	}
}
