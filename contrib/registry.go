package contrib

import (
	"maps"
	"sync"
	"sync/atomic"
)

// Published is one committed generation as the registry serves it. Its Set
// never changes after Publish (AT1).
type Published struct {
	Plugin     string
	Generation string
	Rank       int // position in load order; lower loads first
	Source     Source
	Set        *Set
	Gate       *Gate

	entriesOnce sync.Once // the catalog's projection of Set.Tools (view.go)
	entries     []toolEntry
}

// ExternalTool is a tool the embedding host brings from outside the plugin
// system (CC6). Its Run follows the ToolFunc rules.
type ExternalTool struct {
	Name        string
	ToolSet     string
	Description string
	Catalogs    Catalog
	Parameters  []byte
	// ReadOnly and RequiresApproval are policy hints (MC4), as on plugin
	// tools; nil RequiresApproval means !ReadOnly.
	ReadOnly         bool
	RequiresApproval *bool
	// Multimodal: the tool may return content parts (MC1), as MCP tools do.
	Multimodal bool
	Run        ToolFunc
}

// RegistryOptions configure a Registry. The zero value has no external tools
// and no skill tool.
type RegistryOptions struct {
	External []ExternalTool
	// Skill, when set, is listed last in every catalog it names (skills on).
	Skill *ExternalTool
	// Notes receives each cross-plugin conflict once per generation.
	Notes func(Diagnostic)
	// Defaults are the host's own entries of the points' named targets
	// (DC1); a target without one produces nothing.
	Defaults []Default
	// Unavailable, when set, says why plugin is out of service ("" when it
	// is not): a call naming a tool of its revoked generation answers
	// tool_unavailable with that reason instead of unknown_tool.
	Unavailable func(plugin string) string
	// Settle, when set, runs after a plugin tool's call failed with
	// CauseWorkerFailed, before the call returns: the host records the
	// faults of every plugin the dead worker served first, so the caller
	// sees them faulted (docs/isolation.md).
	Settle func()
}

// Registry is the one registry of published contributions. Publishing or
// revoking a generation swaps in a new immutable View in one step, so readers
// never see a half-published set and never take a lock. Safe for concurrent
// use.
type Registry struct {
	opts     RegistryOptions
	external []toolEntry

	mu       sync.Mutex // serialises writers
	gens     map[string]*Published
	reported map[string]bool
	view     atomic.Pointer[View]
	points   pointState // defaults, runtime entries, invalidation (pointreg.go)

	deferring int  // Defer calls not yet done
	dirty     bool // a deferred Publish awaits its rebuild

	sorted   []*Published // r.gens in catalog order, when sortedOK (order.go)
	sortedOK bool

	departed map[string]string // folded tool name → plugin of a revoked generation (departed.go)
}

// NewRegistry returns an empty registry. External tools whose parameters do
// not compile are left out with a diagnostic sent to opts.Notes.
func NewRegistry(opts RegistryOptions) *Registry {
	r := &Registry{opts: opts, gens: map[string]*Published{}, reported: map[string]bool{}}
	r.points.init(opts.Defaults, r.note)
	r.external = r.externalEntries(opts.External)
	r.rebuild()
	return r
}

func optionalTool(t *ExternalTool) []ExternalTool {
	if t == nil {
		return nil
	}
	return []ExternalTool{*t}
}

func (r *Registry) note(d Diagnostic) {
	if r.opts.Notes != nil {
		r.opts.Notes(d)
	}
}

// Publish makes p the plugin's live generation, replacing any earlier one in
// the same step (AT2: make-before-break): no view ever lacks the plugin, and
// the runtime entries of the replaced generation go with it. The caller (the
// lifecycle) drains the replaced generation afterwards.
func (r *Registry) Publish(p *Published) {
	r.mu.Lock()
	r.placed(r.gens[p.Plugin], p)
	r.gens[p.Plugin] = p
	r.dropRuntime(func(e *runtimeEntry) bool { return e.plugin == p.Plugin && e.gen != p.Generation })
	if r.deferring > 0 {
		r.dirty = true
		r.mu.Unlock()
		return
	}
	r.rebuild()
	r.mu.Unlock()
	r.invalidate(Invalidation{}) // DC12: every point may have changed
}

// Defer batches publications: until the returned function is called,
// Publish records generations without rebuilding the view, so starting n
// plugins costs one rebuild instead of n. Revoke is never deferred. The
// lifecycle defers while it starts plugins, before any of them attaches.
func (r *Registry) Defer() (done func()) {
	r.mu.Lock()
	r.deferring++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.deferring--
		rebuild := r.deferring == 0 && r.dirty
		if rebuild {
			r.dirty = false
			r.rebuild()
		}
		r.mu.Unlock()
		if rebuild {
			r.invalidate(Invalidation{})
		}
	}
}

// Revoke removes plugin's generation, if it is still gen, so proxies and
// snapshots taken earlier yield tool_unavailable from now on (DC4, DC26).
// It reports whether anything was removed.
// Every entry the generation added at run time is released with it (DC11).
func (r *Registry) Revoke(plugin, gen string) bool {
	return r.RevokeAll(map[string]string{plugin: gen}) == 1
}

// RevokeAll is Revoke of many generations (plugin id → generation) in one
// step: one view rebuild and one invalidation for the whole batch, so
// stopping n plugins costs linear, not quadratic, time. Generations no
// longer live are skipped; it returns how many were removed.
func (r *Registry) RevokeAll(gens map[string]string) int {
	r.mu.Lock()
	removed := map[string]bool{}
	for plugin, gen := range gens {
		if p, ok := r.gens[plugin]; ok && p.Generation == gen {
			r.recordDeparted(p)
			delete(r.gens, plugin)
			removed[plugin] = true
		}
	}
	if len(removed) == 0 {
		r.mu.Unlock()
		return 0
	}
	r.unplaced(removed)
	r.dropRuntime(func(e *runtimeEntry) bool { return removed[e.plugin] })
	r.dirty = false
	r.rebuild()
	r.mu.Unlock()
	r.invalidate(Invalidation{}) // DC12: every point may have changed
	return len(removed)
}

// View returns the current immutable view.
func (r *Registry) View() *View { return r.view.Load() }

// rebuild computes a new view from r.gens; r.mu is held.
func (r *Registry) rebuild() {
	v := &View{gens: make(map[string]*Published, len(r.gens)), conflicts: map[string][]Diagnostic{}}
	maps.Copy(v.gens, r.gens)
	v.order = r.ordered() // catalog order (CC6, order.go)
	v.buildTools(r.external)
	v.buildCommands()
	v.buildPlaceholders()
	v.buildPoints()
	v.buildHooks()
	for _, ds := range v.conflicts {
		for _, d := range ds {
			key := string(d.Code) + "|" + d.Plugin + "|" + v.gens[d.Plugin].generationOr() + "|" + d.Message
			if !r.reported[key] {
				r.reported[key] = true
				r.note(d)
			}
		}
	}
	r.view.Store(v)
}

func (p *Published) generationOr() string {
	if p == nil {
		return ""
	}
	return p.Generation
}
