package contrib

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Default is the host's own entry for a named target of a point (DC1): the
// entry a tier B contribution shadows. Its order is the target's.
type Default struct {
	Point  PointName
	Target string
	// Run produces the default's answer; nil produces nothing.
	Run PointFunc
}

// Invalidation tells subscribers that the entries of some points changed
// (DC12): state captured from them (tool snapshots, middleware pipelines,
// instructions) must be rebuilt. Points nil means every point; Thread ""
// means every thread.
type Invalidation struct {
	Points []PointName
	Thread string
}

// Affects reports whether the invalidation concerns point in thread.
func (i Invalidation) Affects(point PointName, thread string) bool {
	return (i.Points == nil || slices.Contains(i.Points, point)) && (i.Thread == "" || i.Thread == thread)
}

// pointState is the registry's share of the contribution points: the
// host's defaults, the entries added at run time and the subscribers of
// invalidations. Static entries live in each generation's Set.
type pointState struct {
	defaults map[PointName]map[string]PointFunc
	seq      uint64                          // last runtime sequence; r.mu
	runtime  atomic.Pointer[[]*runtimeEntry] // copy-on-write under r.mu
	resolved resolutionCache                 // Resolve's answers for the current view

	subMu  sync.Mutex
	subs   []subscriber // in subscription order; replaced, never modified
	subSeq int

	conflictMu sync.Mutex
	reported   map[string]bool // runtime conflicts already noted
}

type subscriber struct {
	id int
	fn func(Invalidation)
}

// runtimeEntry is an entry added with ctx.contributions.add (DC11).
type runtimeEntry struct {
	id          string
	seq         uint64
	plugin, gen string
	entry       PointEntry
}

// init indexes the host's defaults; a default for a target its point does
// not have is left out with a diagnostic.
func (s *pointState) init(defaults []Default, note func(Diagnostic)) {
	s.defaults = map[PointName]map[string]PointFunc{}
	for _, d := range defaults {
		if p := LookupPoint(d.Point); p == nil || p.Target(d.Target) == nil {
			note(Diag(PointEntryInvalid, "", Pos{}, "the host's default for %s target %q names no default of a contribution point; it is ignored", d.Point, d.Target))
			continue
		}
		if s.defaults[d.Point] == nil {
			s.defaults[d.Point] = map[string]PointFunc{}
		}
		s.defaults[d.Point][d.Target] = d.Run
	}
	s.runtime.Store(&[]*runtimeEntry{})
	s.reported = map[string]bool{}
}

// Subscribe calls fn after every change of point entries: a generation
// published or revoked, an entry added or released, a thread ended. fn runs
// on the goroutine that made the change, with no lock held; it must not
// block. Subscribers are called in the order they subscribed. The returned
// function cancels the subscription.
func (r *Registry) Subscribe(fn func(Invalidation)) (cancel func()) {
	s := &r.points
	s.subMu.Lock()
	s.subSeq++
	id := s.subSeq
	s.subs = append(slices.Clone(s.subs), subscriber{id, fn})
	s.subMu.Unlock()
	return func() {
		s.subMu.Lock()
		s.subs = slices.DeleteFunc(slices.Clone(s.subs), func(x subscriber) bool { return x.id == id })
		s.subMu.Unlock()
	}
}

func (r *Registry) invalidate(inv Invalidation) {
	s := &r.points
	s.subMu.Lock()
	subs := s.subs
	s.subMu.Unlock()
	for _, sub := range subs {
		sub.fn(inv)
	}
}

// Handle is a releasable registration of one runtime entry (DC1, DC11).
// Releasing it removes the entry at once; a released replacement restores
// the default on the next evaluation. Safe for concurrent use.
type Handle struct {
	ID     string
	Point  PointName
	Scope  Scope
	Thread string
	reg    *Registry
	remote func() bool // set by NewRemoteHandle
}

// NewRemoteHandle returns the handle of an entry registered in another
// process's registry (a plugin worker's, docs/isolation.md): Release calls
// release.
func NewRemoteHandle(id string, point PointName, scope Scope, thread string, release func() bool) *Handle {
	return &Handle{ID: id, Point: point, Scope: scope, Thread: thread, remote: release}
}

// Release removes the entry. It reports whether the entry was still
// registered.
func (h *Handle) Release() bool {
	if h.remote != nil {
		return h.remote()
	}
	return h.reg.release(func(e *runtimeEntry) bool { return e.id == h.ID })
}

// AddEntry registers e at run time for generation gen of plugin (DC11):
// validated like a static entry, registered after every static entry, and
// visible from the next evaluation. A thread-scoped entry applies to
// e.Thread only and is released when that thread ends; every entry of the
// generation is released when it is revoked.
func (r *Registry) AddEntry(plugin, gen string, e PointEntry) (*Handle, error) {
	if e.Scope == "" {
		e.Scope = ScopeWorkspace
	}
	if e.Scope == ScopeWorkspace {
		e.Thread = ""
	}
	if err := CheckPointEntry(e, false); err != nil {
		return nil, fmt.Errorf("%s entry %w", e.Point, err)
	}
	r.mu.Lock()
	if p := r.gens[plugin]; p == nil || p.Generation != gen {
		r.mu.Unlock()
		return nil, errors.New("the plugin's generation is no longer published")
	}
	s := &r.points
	s.seq++
	rt := &runtimeEntry{id: "h" + strconv.FormatUint(s.seq, 10), seq: s.seq, plugin: plugin, gen: gen, entry: e}
	list := append(slices.Clone(*s.runtime.Load()), rt)
	s.runtime.Store(&list)
	r.mu.Unlock()
	r.invalidate(Invalidation{Points: []PointName{e.Point}, Thread: e.Thread})
	return &Handle{ID: rt.id, Point: e.Point, Scope: e.Scope, Thread: e.Thread, reg: r}, nil
}

// ReleaseEntry releases the runtime entry id if plugin owns it.
func (r *Registry) ReleaseEntry(plugin, id string) bool {
	return r.release(func(e *runtimeEntry) bool { return e.id == id && e.plugin == plugin })
}

// EndThread releases every entry scoped to thread (DC11).
func (r *Registry) EndThread(thread string) {
	r.release(func(e *runtimeEntry) bool { return e.entry.Scope == ScopeThread && e.entry.Thread == thread })
}

// release removes the runtime entries drop selects and signals the change.
func (r *Registry) release(drop func(*runtimeEntry) bool) bool {
	r.mu.Lock()
	inv, ok := r.dropRuntime(drop)
	r.mu.Unlock()
	if ok {
		r.invalidate(inv)
	}
	return ok
}

// dropRuntime removes the selected runtime entries; r.mu is held. It
// returns the invalidation to signal once the lock is released.
func (r *Registry) dropRuntime(drop func(*runtimeEntry) bool) (Invalidation, bool) {
	s := &r.points
	old := *s.runtime.Load()
	kept := make([]*runtimeEntry, 0, len(old))
	var inv Invalidation
	threads, dropped := map[string]bool{}, map[string]bool{}
	for _, e := range old {
		if drop(e) {
			dropped[e.id] = true
			if !slices.Contains(inv.Points, e.entry.Point) {
				inv.Points = append(inv.Points, e.entry.Point)
			}
			threads[e.entry.Thread] = true
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == len(old) {
		return inv, false
	}
	s.runtime.Store(&kept)
	s.forgetConflicts(func(id string) bool { return dropped[id] })
	if len(threads) == 1 {
		for t := range threads {
			inv.Thread = t
		}
	}
	return inv, true
}

// staticPoint is an entry of a published generation's Set.
type staticPoint struct {
	pub   *Published
	rank  int // position in load order
	index int // position in the plugin's contribute() list
	entry *PointEntry
}

// buildPoints indexes the static entries by point and reports replacement
// conflicts among them: all are workspace scope, so the later registration
// wins (DC9).
func (v *View) buildPoints() {
	v.points = map[PointName][]staticPoint{}
	for rank, p := range v.order {
		for i := range p.Set.Points {
			e := &p.Set.Points[i]
			v.points[e.Point] = append(v.points[e.Point], staticPoint{pub: p, rank: rank, index: i, entry: e})
		}
	}
	for name, list := range v.points {
		winner := map[string]staticPoint{}
		for _, sp := range list { // registration order: a later one wins
			if sp.entry.Replace == "" {
				continue
			}
			if prev, taken := winner[sp.entry.Replace]; taken {
				v.addConflict(replaceConflict(name, prev.pub.Plugin, prev.entry.Pos, sp.entry.Replace, sp.pub.Plugin, "registered later in the same workspace scope"))
			}
			winner[sp.entry.Replace] = sp
		}
	}
}

func replaceConflict(point PointName, loser string, pos Pos, target, winner, why string) Diagnostic {
	return Diag(ReplaceConflict, loser, pos,
		"%s replacement of %q loses to the one of %s, %s; this one is not used while that one is registered",
		point, target, winner, why)
}

// Resolved is one entry of a resolved list: a host default, an appended
// entry, a replacement standing where the default it shadows stood, or a
// takeover.
type Resolved struct {
	Origin     string // the plugin id; "" for the host's default
	Generation string
	// Target is the named default this entry stands for ("" for an
	// appended entry or a takeover); Replaced says a plugin entry
	// replaces it.
	Target   string
	Replaced bool
	Order    int
	Scope    Scope
	Thread   string
	Handle   string // the runtime handle id; "" for static entries and defaults
	Pos      Pos
	run      PointFunc
	gate     *Gate
	fallback PointFunc // the default that steps back in when run gives up
}

// candidate is an entry on its way into a resolved list.
type candidate struct {
	Resolved
	replace string
	phase   int // 0 default, 1 static, 2 runtime: registration order
	a, b    uint64
	id      string
}

func (c *candidate) registeredBefore(d *candidate) bool {
	return cmp.Or(cmp.Compare(c.phase, d.phase), cmp.Compare(c.a, d.a), cmp.Compare(c.b, d.b)) < 0
}

// beats reports whether replacement c wins over d (DC9): thread scope beats
// workspace scope; within a scope the later registration wins; order never
// decides.
func (c *candidate) beats(d *candidate) bool {
	if (c.Scope == ScopeThread) != (d.Scope == ScopeThread) {
		return c.Scope == ScopeThread
	}
	return d.registeredBefore(c)
}

// Resolve returns the resolved list of a point for thread ("" for no
// thread) at this moment (DC1, DC9–DC11): the host's defaults and the
// appended entries by ascending order, ties by registration order (defaults
// first, then static entries in load order, then runtime entries in the
// order they were added); each replaced default's place taken by its winning
// replacement; workspace entries and those of thread only. The Resolution is
// a snapshot (its Entries are shared between callers and must not be
// modified): an operation that runs it finishes with these entries even if
// the registry changes meanwhile (DC12). A point served by its own kind, or
// an unknown one, resolves to an empty list.
func (r *Registry) Resolve(name PointName, thread string) *Resolution {
	v, rt := r.View(), r.points.runtime.Load()
	key := string(name) + "\x00" + thread
	if res := r.points.resolved.get(v, rt, key); res != nil {
		out := *res // Notes is the caller's to replace; Entries are shared, read-only
		out.Notes = r.note
		return &out
	}
	res := r.resolve(name, thread, v, rt)
	r.points.resolved.put(v, rt, key, res)
	out := *res
	return &out
}

// resolve builds the resolution of name for thread from view v and the
// runtime entries rt.
func (r *Registry) resolve(name PointName, thread string, v *View, rt *[]*runtimeEntry) *Resolution {
	res := &Resolution{Point: LookupPoint(name), Thread: thread, Notes: r.note}
	if res.Point == nil || res.Point.Kind {
		return res
	}
	cands := make([]candidate, 0, len(res.Point.Targets)+len(v.points[name]))
	for i, t := range res.Point.Targets {
		cands = append(cands, candidate{Resolved: Resolved{Target: t.Name, Order: t.Order, Scope: ScopeWorkspace,
			run: r.points.defaults[name][t.Name]}, phase: 0, a: uint64(i)})
	}
	for _, sp := range v.points[name] {
		e := sp.entry
		cands = append(cands, candidate{Resolved: Resolved{Origin: sp.pub.Plugin, Generation: sp.pub.Generation,
			Order: e.Order, Scope: ScopeWorkspace, Pos: e.Pos, run: e.Run, gate: sp.pub.Gate},
			replace: e.Replace, phase: 1, a: uint64(sp.rank), b: uint64(sp.index),
			id: sp.pub.Plugin + "/" + sp.pub.Generation + "/" + strconv.Itoa(sp.index)})
	}
	for _, rt := range *rt {
		e := rt.entry
		if e.Point != name || e.Scope == ScopeThread && e.Thread != thread {
			continue
		}
		gate := v.Gate(rt.plugin, rt.gen)
		if gate == nil {
			continue
		}
		cands = append(cands, candidate{Resolved: Resolved{Origin: rt.plugin, Generation: rt.gen, Order: e.Order,
			Scope: e.Scope, Thread: e.Thread, Handle: rt.id, Pos: e.Pos, run: e.Run, gate: gate},
			replace: e.Replace, phase: 2, a: rt.seq, id: rt.id})
	}
	winners := r.replacements(res.Point, cands)
	list := make([]*candidate, 0, len(cands))
	for i := range cands {
		if cands[i].replace == "" {
			list = append(list, &cands[i])
		}
	}
	slices.SortStableFunc(list, func(x, y *candidate) int {
		if c := cmp.Compare(x.Order, y.Order); c != 0 {
			return c
		}
		if x.registeredBefore(y) {
			return -1
		}
		return 1
	})
	res.Entries = make([]Resolved, len(list))
	for i, c := range list {
		res.Entries[i] = c.Resolved
		if w := winners[c.Target]; c.phase == 0 && w != nil {
			e := w.Resolved
			e.Target, e.Replaced, e.Order = c.Target, true, c.Order // stands where the default stood
			if res.Point.Target(c.Target).NoneGivesUp {
				e.fallback = c.run
			}
			res.Entries[i] = e
		}
	}
	return res
}

// replacements picks the winning replacement of each target (DC9) and
// notes each loser once; conflicts among static entries alone are already
// reported with the generation.
func (r *Registry) replacements(p *Point, cands []candidate) map[string]*candidate {
	var winners map[string]*candidate
	for i := range cands {
		c := &cands[i]
		if c.replace == "" {
			continue
		}
		if winners == nil {
			winners = map[string]*candidate{}
		}
		prev := winners[c.replace]
		if prev == nil {
			winners[c.replace] = c
			continue
		}
		win, lose := c, prev
		if !c.beats(prev) {
			win, lose = prev, c
		}
		winners[c.replace] = win
		if win.phase == 2 || lose.phase == 2 {
			why := "registered later in the same scope"
			if win.Scope != lose.Scope {
				why = "thread scope beats workspace scope"
			}
			r.noteConflictOnce(lose.id+">"+win.id, replaceConflict(p.Name, lose.Origin, lose.Pos, c.replace, win.Origin, why))
		}
	}
	return winners
}

// forgetConflicts drops the noted conflicts of runtime entries gone: the
// set of noted pairs stays as small as the registry.
func (s *pointState) forgetConflicts(gone func(id string) bool) {
	s.conflictMu.Lock()
	defer s.conflictMu.Unlock()
	for key := range s.reported {
		loser, winner, _ := strings.Cut(key, ">")
		if gone(loser) || gone(winner) {
			delete(s.reported, key)
		}
	}
}

func (r *Registry) noteConflictOnce(key string, d Diagnostic) {
	s := &r.points
	s.conflictMu.Lock()
	seen := s.reported[key]
	s.reported[key] = true
	s.conflictMu.Unlock()
	if !seen {
		r.note(d)
	}
}

// admit runs fn as one call admitted into gate, or directly for the host's
// own entries (nil gate). It reports false when the generation no longer
// admits calls.
func admit(ctx context.Context, gate *Gate, fn func(context.Context)) bool {
	if gate == nil {
		fn(ctx)
		return true
	}
	return gate.Do(ctx, fn)
}

// Without returns a snapshot of the same proxies minus the named tools, for
// the tool restrictions of a thread (DC2). s itself is unchanged.
func (s *ToolSnapshot) Without(names []string) *ToolSnapshot {
	if len(names) == 0 {
		return s
	}
	out := &ToolSnapshot{reg: s.reg, byName: map[string]int{}}
	for _, t := range s.tools {
		if !slices.Contains(names, t.Name) {
			out.byName[t.Name] = len(out.tools)
			out.tools = append(out.tools, t)
		}
	}
	return out
}

// Empty reports whether the entry is a host default the host gave no
// implementation: it answers nothing, and only marks where a replacement
// would stand.
func (e *Resolved) Empty() bool { return e.run == nil }

// resolutionCache keeps Resolve's answers while the view and the runtime
// entries they were built from are current: both are immutable snapshots,
// so an answer built from them stays right until either is replaced (which
// is when subscribers are told, DC12). Dispatch resolves four points per
// call; this makes each a map lookup.
type resolutionCache struct {
	mu   sync.Mutex
	view *View
	rt   *[]*runtimeEntry
	m    map[string]*Resolution
}

// maxCachedResolutions bounds the cache (one entry per point and thread).
const maxCachedResolutions = 4096

func (c *resolutionCache) get(v *View, rt *[]*runtimeEntry, key string) *Resolution {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.view != v || c.rt != rt {
		return nil
	}
	return c.m[key]
}

func (c *resolutionCache) put(v *View, rt *[]*runtimeEntry, key string, res *Resolution) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.view != v || c.rt != rt || len(c.m) >= maxCachedResolutions {
		c.view, c.rt, c.m = v, rt, map[string]*Resolution{}
	}
	c.m[key] = res
}
