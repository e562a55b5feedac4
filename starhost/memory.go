package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/contrib"
)

// The memory target (DotCraft's built-in memory provider, MC3). Replacing
// it takes over the whole system prompt: the replacement receives every
// build-time input the host's own prompt would use — tool names, the MCP
// servers (external tool sets), the subagent profile sections and the
// skill-variant target — and what it answers is the thread's system prompt.
// None gives up: the host assembles its prompt as usual and its own memory
// steps back in, so no agent runs without a prompt (DC9).

// memoryInputs are the prompt inputs of thread, as the memory target sees
// them under "inputs". Its tools are the ones the session's mode offers the
// model (toolsFor with CatalogFor(mode)): provided tools included, withheld
// ones left out, as Tools and Dispatch see them.
func (h *Host) memoryInputs(ctx context.Context, thread string) map[string]any {
	tools := []any{}
	catalog := contrib.Catalog(CatalogFor(h.factsOf(ctx).Mode))
	for _, t := range h.toolsFor(ctx, thread, catalog).List() {
		tools = append(tools, t.Name)
	}
	servers := []any{}
	for _, s := range h.toolSetNames() {
		servers = append(servers, s)
	}
	subagents := []any{}
	for _, s := range h.subagents(ctx, thread) {
		subagents = append(subagents, map[string]any{"name": s.Name, "plugin": s.Plugin,
			"section": "## " + s.Name + "\n" + s.Description + "\n\n" + s.Instructions})
	}
	skill := ""
	if h.Config().Skills && len(h.Skills()) > 0 {
		skill = "skill" // the tool the prompt points the model to for skills
	}
	return map[string]any{"tools": tools, "mcp_servers": servers, "subagents": subagents, "skill_variant": skill}
}

// toolSetNames lists the external tool sets (ToolSets).
func (h *Host) toolSetNames() []string {
	var sets []string
	for _, s := range h.ToolSets() {
		sets = append(sets, s.Name)
	}
	return sets
}

// memoryTakeover asks a plugin replacement of the memory target for the
// whole system prompt of thread. ok is false when no plugin replaces it,
// it gave up (None) or it failed (a note).
func (h *Host) memoryTakeover(ctx context.Context, thread string, rn *runNotes) (PromptSection, bool) {
	res := rn.resolve(contrib.PointContextTransform, thread).Replacement(contrib.TargetMemory)
	if res == nil {
		return PromptSection{}, false
	}
	in := map[string]any{"thread": thread, "purpose": "system_prompt", "mode": h.factsOf(ctx).Mode,
		"inputs": h.memoryInputs(ctx, thread)}
	out, ok, _ := res.First(ctx, in, textAnswer)
	if !ok {
		return PromptSection{}, false
	}
	return PromptSection{Point: PointContextTransform, Target: contrib.TargetMemory, Origin: out.Entry.Origin,
		Replaced: true, Scope: string(out.Entry.Scope), Text: out.Value.(string)}, true
}
