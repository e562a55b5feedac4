package lifecycle

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/crystal-star/crystal-star/contrib"
)

// compatible reports whether provider version have satisfies the minimum
// want on its compatibility line (DC15): 1.2.0 accepts >=1.2.0 <2.0.0; for
// 0.x major and minor must match (0.2.1 accepts 0.2.x >= 0.2.1).
func compatible(want, have string) bool {
	w, h := "v"+want, "v"+have
	if !semver.IsValid(w) || !semver.IsValid(h) || semver.Compare(h, w) < 0 {
		return false
	}
	if semver.Major(w) == "v0" {
		return semver.MajorMinor(w) == semver.MajorMinor(h)
	}
	return semver.Major(w) == semver.Major(h)
}

func unsatisfied(provider, format string, args ...any) Blocker {
	return Blocker{Code: contrib.PluginDependencyUnsatisfied, Message: fmt.Sprintf(format, args...),
		Remedy: "install, enable or upgrade " + provider}
}

// dependencyBlockers checks p's dependencies against their providers' current
// states (DC13–DC15). Providers are activated before p. m.op is held.
func (m *Manager) dependencyBlockers(p *plugin) []Blocker {
	mf := p.cand.Manifest
	var bs []Blocker
	if cycle := m.cycleFrom(mf.ID); cycle != nil {
		return []Blocker{unsatisfied(cycle[1], "dependency cycle: %s", strings.Join(cycle, " -> "))}
	}
	owner := map[string]string{}
	for _, dep := range slices.Sorted(maps.Keys(mf.Dependencies)) {
		want := mf.Dependencies[dep]
		q := m.find(dep)
		switch {
		case q == nil || q.cand.Manifest == nil:
			bs = append(bs, unsatisfied(dep, "dependency %s is not installed", dep))
		case !compatible(want, q.cand.Manifest.Version):
			bs = append(bs, unsatisfied(dep, "dependency %s %s is not on the compatibility line of %s", dep, q.cand.Manifest.Version, want))
		case q.state != Active || q.gen == nil:
			bs = append(bs, unsatisfied(dep, "dependency %s is %s, not active", dep, q.state))
		default:
			for _, name := range slices.Sorted(maps.Keys(q.gen.exports)) {
				if other, clash := owner[name]; clash {
					bs = append(bs, Blocker{Code: contrib.PluginAPIAssemblyConflict,
						Message: fmt.Sprintf("providers %s and %s both export %q", other, dep, name),
						Remedy:  "depend on only one of them, or rename one export"})
				}
				owner[name] = dep
			}
		}
	}
	return bs
}

// cycleFrom returns a dependency cycle through id, or nil.
func (m *Manager) cycleFrom(id string) []string {
	var path []string
	var walk func(string) []string
	walk = func(cur string) []string {
		if i := slices.Index(path, cur); i >= 0 {
			return append(slices.Clone(path[i:]), cur)
		}
		q := m.find(cur)
		if q == nil || q.cand.Manifest == nil {
			return nil
		}
		path = append(path, cur)
		defer func() { path = path[:len(path)-1] }()
		for _, dep := range slices.Sorted(maps.Keys(q.cand.Manifest.Dependencies)) {
			if c := walk(dep); c != nil && slices.Contains(c, id) {
				return c
			}
		}
		return nil
	}
	return walk(id)
}

// providerExports collects the exports of p's direct dependencies.
func (m *Manager) providerExports(p *plugin) map[string]map[string]any {
	out := map[string]map[string]any{}
	for dep := range p.cand.Manifest.Dependencies {
		if q := m.find(dep); q != nil && q.gen != nil {
			out[dep] = q.gen.exports
		}
	}
	return out
}

// dependencyOrder sorts ps so providers come before consumers, keeping load
// order otherwise (DC13): the order of DependencyOrder, with plugins whose
// manifest is unusable (they never activate) at the end.
func (m *Manager) dependencyOrder(ps []*plugin) []*plugin {
	byCand := make(map[*Candidate]*plugin, len(ps))
	cands := make([]*Candidate, len(ps))
	for i, p := range ps {
		byCand[p.cand], cands[i] = p, p.cand
	}
	out := make([]*plugin, 0, len(ps))
	for _, c := range DependencyOrder(cands) {
		out = append(out, byCand[c])
	}
	for _, p := range ps {
		if p.cand.Manifest == nil {
			out = append(out, p)
		}
	}
	return out
}

// consumersOf returns, in dependency order, every plugin that depends on id
// directly or transitively.
func (m *Manager) consumersOf(id string) []*plugin {
	m.mu.RLock()
	ps := slices.Clone(m.plugins)
	m.mu.RUnlock()
	affected := map[string]bool{id: true}
	for changed := true; changed; {
		changed = false
		for _, p := range ps {
			if p.cand.Manifest == nil || affected[p.cand.Manifest.ID] {
				continue
			}
			for dep := range p.cand.Manifest.Dependencies {
				if affected[dep] {
					affected[p.cand.Manifest.ID], changed = true, true
					break
				}
			}
		}
	}
	if len(affected) == 1 {
		return nil // nobody depends on id: no need to order everyone
	}
	var out []*plugin
	for _, p := range m.dependencyOrder(ps) {
		if p.cand.Manifest != nil && p.cand.Manifest.ID != id && affected[p.cand.Manifest.ID] {
			out = append(out, p)
		}
	}
	return out
}

// Reevaluate retries every blocked plugin whose cause may have changed
// (DC25): after a provider activated, configuration or trust changed, or a
// teardown finished.
func (m *Manager) Reevaluate(ctx context.Context) {
	m.op.Lock()
	defer m.op.Unlock()
	m.reevaluate(ctx)
}

func (m *Manager) reevaluate(ctx context.Context) {
	if m.closing.Load() {
		return
	}
	m.mu.RLock()
	all := slices.Clone(m.plugins)
	m.mu.RUnlock()
	// One pass in load order finds what there is to do; when nothing lost
	// admission and nothing waits, ordering every plugin by its
	// dependencies (a reload asks this each time) is skipped.
	lostAdmission := map[*plugin]bool{}
	work := false
	for _, p := range all {
		switch {
		case p.state == Active && p.gen != nil:
			if len(m.admit(p.cand, p.gen.fp)) > 0 || !p.cand.Manifest.IsEnabled() || m.opts.Disabled(p.cand.Manifest.ID) {
				lostAdmission[p], work = true, true
			}
		case p.state == Faulted && p.cand.Manifest != nil, p.state == Blocked:
			work = true
		case p.stopReason != nil:
			// Stopped by the operator's switch (MC5): work once switched on.
			work = work || p.cand.Manifest.IsEnabled() && !m.opts.Disabled(p.cand.Manifest.ID)
		}
		// A deferred reload waits while its plugin still serves the
		// previous generation (make-before-break), so it is not a state.
		work = work || p.deferred && !p.teardown
	}
	if !work {
		return
	}
	ps := m.dependencyOrder(all)
	// Active plugins that lost admission stop, consumers first (DC21).
	stopping := map[string]bool{}
	for _, p := range ps {
		if p.state != Active || p.gen == nil {
			continue
		}
		lost := lostAdmission[p]
		for dep := range p.cand.Manifest.Dependencies {
			lost = lost || stopping[dep]
		}
		if lost {
			stopping[p.cand.Manifest.ID] = true
		}
	}
	var stop []*plugin
	for _, p := range ps {
		if stopping[p.cand.ID()] {
			stop = append(stop, p)
		}
	}
	m.deactivateAll(stop) // consumers first, one revocation for all
	var retry []*plugin
	for _, p := range ps {
		// DC25: a faulted plugin that is now disabled becomes blocked, so
		// enabling it again retries.
		if p.state == Faulted && p.cand.Manifest != nil {
			if bs := m.preflight(p); len(bs) > 0 {
				m.block(p, bs)
				continue
			}
		}
		if p.state == Blocked || p.stopReason != nil || stopping[p.cand.ID()] || p.deferred && !p.teardown {
			retry = append(retry, p)
		}
	}
	m.activateAndAttach(ctx, retry, nil)
}

// activateAndAttach activates ps in order (first gets its already-read
// bundle) and then runs the attach stages of every generation that is new
// (activateBundles).
func (m *Manager) activateAndAttach(ctx context.Context, ps []*plugin, first *Bundle) {
	bundles := make([]*Bundle, len(ps))
	if len(ps) > 0 {
		bundles[0] = first
	}
	m.activateBundles(ctx, ps, bundles)
}

// activateBundles activates ps in order, each with its already-read bundle
// (nil: read it now), and then runs the attach stages of every generation
// that is new: an unchanged plugin keeps its generation and is not attached
// again (CC17, CC20: once per loaded generation).
func (m *Manager) activateBundles(ctx context.Context, ps []*plugin, bundles []*Bundle) {
	changed := map[string]bool{}
	for i, p := range ps {
		before := p.gen
		m.activate(ctx, p, bundles[i])
		if p.gen != nil && p.gen != before {
			changed[p.cand.ID()] = true
		}
	}
	if len(changed) > 0 {
		m.attachAll(ctx, changed)
	}
}
