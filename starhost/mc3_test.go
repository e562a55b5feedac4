package starhost_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
)

// TestMC3_MemoryTargetTakesOverThePrompt: a replacement of the memory
// target receives every input the document lists — tool names, MCP servers
// (external tool sets), subagent profile sections, the skill-variant target
// — and its answer is the whole system prompt; the host's sections, the
// assembler and the host memory step aside. None gives up: the host's
// prompt and memory are back.
func TestMC3_MemoryTargetTakesOverThePrompt(t *testing.T) {
	ext := starhost.ExternalTool{Name: "gh_search", ToolSet: "github", Catalogs: starhost.Work,
		Run: func(context.Context, any) starhost.ToolResult { return starhost.ToolResult{Text: "x"} }}
	h, _, _ := pointsHost(t, starhost.Options{External: []starhost.ExternalTool{ext},
		Points: starhost.PointDefaults{Sections: testSections, Memory: func(context.Context, string) string { return "host memory" }}},
		map[string]string{"a": `
def memory(ctx, req):
    if ctx.store.get("give_up"):
        return None
    return "PROMPT " + json.encode(req["inputs"])

def give_up(ctx, args):
    ctx.store["give_up"] = True
    return "ok"

contribute(
    tools = [tool(name = "give_up", catalogs = "work", run = give_up)],
    context_transforms = [context_transform(replace = TARGET_MEMORY, run = memory)],
    subagent_runtimes = [subagent_runtime(run = lambda ctx, req: {"name": "reviewer", "description": "Reviews diffs.", "instructions": "Be brief."})],
)`})
	os.MkdirAll(filepath.Join(h.Session().Facts().Workspace, ".crystal", "skills", "lint"), 0o755)
	os.WriteFile(filepath.Join(h.Session().Facts().Workspace, ".crystal", "skills", "lint", "SKILL.md"), []byte("---\ndescription: lints\n---\n"), 0o644)

	p := h.Session().Thread("t").AssemblePrompt(bg)
	text, ok := strings.CutPrefix(p.Text, "PROMPT ")
	if !ok || p.Memory != "acme.a" || len(p.Sections) != 1 || p.Sections[0].Target != contrib.TargetMemory {
		t.Fatalf("prompt %+v; want the memory replacement's text as the whole prompt", p)
	}
	var inputs struct {
		Tools        []string `json:"tools"`
		MCPServers   []string `json:"mcp_servers"`
		Subagents    []struct{ Name, Section string }
		SkillVariant string `json:"skill_variant"`
	}
	if err := json.Unmarshal([]byte(text), &inputs); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(inputs.Tools, "give_up") || !slices.Contains(inputs.Tools, "gh_search") ||
		!slices.Equal(inputs.MCPServers, []string{"github"}) || len(inputs.Subagents) != 1 ||
		inputs.Subagents[0].Section != "## reviewer\nReviews diffs.\n\nBe brief." || inputs.SkillVariant != "skill" {
		t.Errorf("inputs %+v", inputs)
	}
	// It took over the prompt, so it is not asked again as context; the
	// host memory does not run beside it.
	if got := h.Session().Thread("t").PrepareModelCall(bg, starhost.OutboundCall{Purpose: "turn"}).Context; len(got) != 0 {
		t.Errorf("context %q; want none while the replacement owns the prompt", got)
	}

	// None gives up: the host's sections and memory are back.
	h.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(bg, "give_up", nil)
	h.Session().Thread("t").End(bg)
	p = h.Session().Thread("t").AssemblePrompt(bg)
	if p.Memory != "" || strings.HasPrefix(p.Text, "PROMPT") || len(p.Sections) < 2 {
		t.Errorf("after giving up: %+v; want the host's prompt", p)
	}
	if got := h.Session().Thread("t").PrepareModelCall(bg, starhost.OutboundCall{Purpose: "turn"}).Context; !slices.Equal(got, []string{"host memory"}) {
		t.Errorf("context %q; want the host memory back", got)
	}
}
