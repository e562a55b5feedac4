package contrib

import (
	"cmp"
	"encoding/json"
	"slices"
)

// View is an immutable picture of everything published at one moment: the
// tool catalog in order, command candidates and placeholder winners, with the
// cross-plugin conflicts found while building it.
type View struct {
	gens      map[string]*Published
	order     []*Published   // catalog order
	tools     []*toolEntry   // shared with the generations' projections: read only
	toolIndex map[string]int // tools by exact name
	commands  map[string][]CommandEntry
	holders   map[string]PlaceholderEntry
	points    map[PointName][]staticPoint // static entries, load order (pointreg.go)
	hooks     map[HookEvent][]HookRun     // by stage, raw hooks last (hooks.go)
	conflicts map[string][]Diagnostic     // by plugin id
}

// toolEntry is a projected tool (DC4): a copy of the definition plus what is
// needed to re-resolve it. It holds no plugin objects, only ids.
type toolEntry struct {
	Name        string
	Plugin      string
	Generation  string
	ToolSet     string
	Description string
	Catalogs    Catalog
	Parameters  json.RawMessage
	Output      json.RawMessage // the output_schema, or nil
	ReadOnly    bool
	// Namespace is the effective namespace and RequiresApproval the
	// effective hint (MC4, toolhints.go).
	Namespace        string
	RequiresApproval bool
	Multimodal       bool // may return content parts (MC1)
	Remote           bool // rpc-eligible (DC7)
	index            int  // into the generation's Set.Tools
	external         bool
	schema           *Schema
	form             JSONBuilder // ArgsFormOf(run)
	run              ToolRunner
}

func (v *View) addConflict(d Diagnostic) {
	v.conflicts[d.Plugin] = append(v.conflicts[d.Plugin], d)
}

// Conflicts returns the cross-plugin diagnostics this view holds for plugin.
func (v *View) Conflicts(plugin string) []Diagnostic { return v.conflicts[plugin] }

func (v *View) buildTools(external []toolEntry) {
	n := len(external)
	for _, p := range v.order {
		n += len(p.Set.Tools)
	}
	// Sized once, and holding pointers to entries projected once per
	// generation: the view is rebuilt on every publication, so building n
	// entries (and growing the map and the list step by step) dominated a
	// reload with many plugins loaded.
	owner := make(map[string]string, n)
	v.toolIndex = make(map[string]int, n)
	v.tools = make([]*toolEntry, 0, n)
	for _, p := range v.order {
		entries := p.toolEntries()
		for i := range entries {
			t := &entries[i]
			key := fold(t.Name)
			if prev, taken := owner[key]; taken {
				v.addConflict(Diag(ToolNameTaken, p.Plugin, p.Set.Tools[i].Pos,
					"tool %q is already contributed by %s, earlier in load order; this one is left out", t.Name, prev))
				continue
			}
			owner[key] = p.Plugin
			v.toolIndex[t.Name] = len(v.tools)
			v.tools = append(v.tools, t)
		}
	}
	for i := range external {
		x := &external[i]
		if prev, taken := owner[fold(x.Name)]; taken {
			what := "a tool of plugin " + prev
			if prev == "" {
				what = "an earlier external tool"
			}
			v.addConflict(Diag(ExternalToolShadowed, "", Pos{},
				"external tool %q has the name of %s; the external tool is left out", x.Name, what))
			continue
		}
		owner[fold(x.Name)] = ""
		v.tools = append(v.tools, x)
	}
}

// toolEntries returns p's tools as the catalog projects them, built once
// per generation (its set never changes after Publish, AT1).
func (p *Published) toolEntries() []toolEntry {
	p.entriesOnce.Do(func() {
		p.entries = make([]toolEntry, len(p.Set.Tools))
		for i := range p.Set.Tools {
			t := &p.Set.Tools[i]
			p.entries[i] = toolEntry{
				Name: t.Name, Plugin: p.Plugin, Generation: p.Generation, Description: t.Description,
				Catalogs: t.Catalogs, Parameters: t.Parameters, ReadOnly: t.ReadOnly, index: i, schema: t.schema, form: ArgsFormOf(t.Run),
				Namespace: cmp.Or(t.Namespace, p.Plugin), RequiresApproval: approvalRequired(t.ReadOnly, t.RequiresApproval),
				Multimodal: t.Multimodal, Output: t.OutputSchema, Remote: t.Remote,
			}
		}
	})
	return p.entries
}

// CommandEntry is one plugin command candidate for a name.
type CommandEntry struct {
	Plugin     string
	Generation string
	Command    *Command
	rank, idx  int
}

func (v *View) buildCommands() {
	v.commands = map[string][]CommandEntry{}
	// rank is the position in v.order: the same load order as the catalog
	// (built-in plugins first).
	for rank, p := range v.order {
		for i := range p.Set.Commands {
			c := &p.Set.Commands[i]
			e := CommandEntry{Plugin: p.Plugin, Generation: p.Generation, Command: c, rank: rank, idx: i}
			for _, n := range append([]string{c.Name}, c.Aliases...) {
				v.commands[fold(n)] = append(v.commands[fold(n)], e)
			}
		}
	}
	for _, list := range v.commands {
		// DC8: lowest order first, then load order, then registration order.
		slices.SortStableFunc(list, func(a, b CommandEntry) int {
			return cmp.Or(cmp.Compare(a.Command.Order, b.Command.Order), cmp.Compare(a.rank, b.rank), cmp.Compare(a.idx, b.idx))
		})
	}
}

// Commands returns the plugin candidates for /name (or an alias), in the
// order they are asked (DC8). The slice must not be modified.
func (v *View) Commands(name string) []CommandEntry { return v.commands[fold(name)] }

// AllCommands returns every plugin command once, in load order.
func (v *View) AllCommands() []CommandEntry {
	var out []CommandEntry
	for _, p := range v.order {
		for i := range p.Set.Commands {
			out = append(out, CommandEntry{Plugin: p.Plugin, Generation: p.Generation, Command: &p.Set.Commands[i], rank: p.Rank, idx: i})
		}
	}
	return out
}

// PlaceholderEntry is the winning placeholder for a name.
type PlaceholderEntry struct {
	Plugin      string
	Generation  string
	Placeholder *Placeholder
}

func (v *View) buildPlaceholders() {
	v.holders = map[string]PlaceholderEntry{}
	// CC12: first in load order wins (built-in plugins load first).
	for _, p := range v.order {
		for i := range p.Set.Placeholders {
			h := &p.Set.Placeholders[i]
			if prev, taken := v.holders[fold(h.Name)]; taken {
				v.addConflict(Diag(placeholderTaken, p.Plugin, h.Pos,
					"placeholder {{%s}} is already contributed by %s, earlier in load order; this one is left out", h.Name, prev.Plugin))
				continue
			}
			v.holders[fold(h.Name)] = PlaceholderEntry{Plugin: p.Plugin, Generation: p.Generation, Placeholder: h}
		}
	}
}

// Placeholder returns the placeholder that owns name, matched
// case-insensitively (CC12).
func (v *View) Placeholder(name string) (PlaceholderEntry, bool) {
	e, ok := v.holders[fold(name)]
	return e, ok
}

// Gate returns the live gate of plugin's generation gen, or nil when that
// generation is no longer published.
func (v *View) Gate(plugin, gen string) *Gate {
	p := v.gens[plugin]
	if p == nil || p.Generation != gen {
		return nil
	}
	return p.Gate
}

// Published returns every published generation in catalog order.
func (v *View) Published() []*Published { return v.order }

// tools returns a frozen snapshot of the tools listed in catalog c, in
// catalog order (CC6), whose proxies re-resolve through r.
func (v *View) snapshot(r *Registry, c Catalog) *ToolSnapshot {
	s := &ToolSnapshot{reg: r, byName: map[string]int{}}
	for _, t := range v.tools {
		if t.Catalogs&c != 0 {
			s.byName[t.Name] = len(s.tools)
			s.tools = append(s.tools, *t)
		}
	}
	return s
}

// lookup re-resolves a proxy against this view (DC4): to its own
// generation while that is published; after a reload replaced it, to the
// plugin's published generation when that still offers a tool of the same
// name in one of the proxy's catalogs (AT2: a tool present in both never
// disappears). A stopped plugin, or a tool the new generation dropped,
// resolves to nothing (tool_unavailable).
func (v *View) lookup(t *toolEntry) (*Tool, *Gate, *Schema) {
	p := v.gens[t.Plugin]
	if p == nil {
		return nil, nil, nil
	}
	if p.Generation == t.Generation {
		if t.index < 0 { // provided for one planning (MC2, provided.go)
			return &Tool{Name: t.Name, Run: t.run}, p.Gate, t.schema
		}
		return &p.Set.Tools[t.index], p.Gate, t.schema
	}
	i, ok := v.toolIndex[t.Name]
	if !ok {
		return nil, nil, nil
	}
	e := v.tools[i]
	if e.Plugin != t.Plugin || e.Generation != p.Generation || e.Catalogs&t.Catalogs == 0 {
		return nil, nil, nil
	}
	return &p.Set.Tools[e.index], p.Gate, e.schema
}
