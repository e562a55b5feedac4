package starhost

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"sync"
)

// External tool sets (CC6, CC19, MC7). The package starhost/toolsets starts
// the sets of {home}/config.toml as MCP servers and reports each set's
// state and tools here; an embedder with tool sets of its own does the
// same. The host keeps the catalog and the environment in step and re-runs
// attach when they change (CC3).

// ToolSetState is how one external tool set stands, as the environment
// lists it (CC19): Enabled is the operator's switch, Effective that its
// tools can be called now, Loaded that its tools were listed at least once
// (they stay in the catalog while the set restarts), SkipReason why it is
// not effective ("not started", "disabled", "failed to start: …",
// "died: …", "invalid: …").
type ToolSetState struct {
	Name       string `json:"name"`
	Source     string `json:"source"` // "home" for config.toml, "embedder" for Options.External
	Enabled    bool   `json:"enabled"`
	Effective  bool   `json:"effective"`
	Loaded     bool   `json:"loaded"`
	SkipReason string `json:"skip_reason"`
}

// toolSetTable is the host's record of the reported sets.
type toolSetTable struct {
	mu     sync.Mutex
	states map[string]ToolSetState
	tools  map[string][]ExternalTool
}

// SetToolSet records the state and tools of one external tool set. When
// either changed, the catalog is rebuilt — the set's tools are external
// tools after the plugin tools, sets by name (CC6); one named like a plugin
// tool is left out with a note — and attach runs again for every plugin
// (CC3), since a catalog reloaded. tools nil keeps the tools last reported
// (a set that died keeps its tools listed; they answer tool_unavailable).
// Safe for concurrent use.
func (h *Host) SetToolSet(ctx context.Context, st ToolSetState, tools []ExternalTool) {
	t := &h.toolSets
	t.mu.Lock()
	if t.states == nil {
		t.states, t.tools = map[string]ToolSetState{}, map[string][]ExternalTool{}
	}
	changed := t.states[st.Name] != st
	t.states[st.Name] = st
	if tools != nil && toolsSignature(tools) != toolsSignature(t.tools[st.Name]) {
		t.tools[st.Name], changed = tools, true
	}
	all := slices.Clone(h.opts.External)
	names := make([]string, 0, len(t.tools))
	for n := range t.tools {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		all = append(all, t.tools[n]...)
	}
	t.mu.Unlock()
	if !changed {
		return
	}
	h.registry.SetExternal(externalTools(all))
	if h.attached.Load() {
		h.manager.Reattach(ctx) // CC3: the external catalog reloaded
	}
}

// ToolSets lists the external tool sets: those reported with SetToolSet,
// by name, then the embedder's own sets (Options.External) that were not,
// as enabled, effective and loaded.
func (h *Host) ToolSets() []ToolSetState {
	t := &h.toolSets
	t.mu.Lock()
	out := make([]ToolSetState, 0, len(t.states))
	for _, st := range t.states {
		out = append(out, st)
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b ToolSetState) int { return cmp.Compare(a.Name, b.Name) })
	for _, x := range h.opts.External {
		if x.ToolSet != "" && !slices.ContainsFunc(out, func(s ToolSetState) bool { return s.Name == x.ToolSet }) {
			out = append(out, ToolSetState{Name: x.ToolSet, Source: "embedder", Enabled: true, Effective: true, Loaded: true})
		}
	}
	return out
}

// toolsSignature identifies what the catalog shows of a set's tools, so an
// unchanged relisting (a restart) reloads nothing.
func toolsSignature(tools []ExternalTool) string {
	type sig struct {
		Name, Description string
		Catalogs          Catalog
		Parameters        json.RawMessage
		ReadOnly          bool
	}
	list := make([]sig, len(tools))
	for i, x := range tools {
		list[i] = sig{x.Name, x.Description, x.Catalogs, x.Parameters, x.ReadOnly}
	}
	b, _ := json.Marshal(list)
	return string(b)
}
