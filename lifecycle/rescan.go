package lifecycle

import (
	"context"
	"slices"
)

// Rescan discovers every root again (AT4): plugin directories that appeared
// are admitted and activated, ones that disappeared are deactivated and
// forgotten, and the rest keep their generation. Blocked plugins are then
// re-evaluated (DC25).
func (m *Manager) Rescan(ctx context.Context) {
	m.op.Lock()
	defer m.op.Unlock()
	m.mu.RLock()
	old := map[string]*plugin{}
	for _, p := range m.plugins {
		old[p.cand.Dir] = p
	}
	m.mu.RUnlock()
	var ps, fresh []*plugin
	for _, c := range Discover(m.opts.Roots, m.opts.Display) {
		p := old[c.Dir]
		delete(old, c.Dir)
		switch {
		case p == nil:
			p = &plugin{cand: c, state: Stopped, diags: slices.Clone(c.Diagnostics), blockers: manifestBlockers(c)}
			if len(p.blockers) > 0 {
				p.state = Blocked
			}
			fresh = append(fresh, p)
		case p.gen == nil && p.state == Faulted && unchanged(p, c):
			// DC25: a faulted plugin retries when its source changes, not on
			// every rescan.
		case p.gen == nil:
			// Not running: take the manifest as it is now.
			m.mu.Lock()
			p.cand, p.diags, p.blockers = c, slices.Clone(c.Diagnostics), manifestBlockers(c)
			if len(p.blockers) > 0 {
				p.state = Blocked
			}
			m.mu.Unlock()
			fresh = append(fresh, p)
		}
		ps = append(ps, p)
	}
	var gone []*plugin
	for _, p := range old {
		gone = append(gone, p)
	}
	m.deactivateAll(m.dependencyOrder(gone))
	m.setPlugins(ps)
	order := m.dependencyOrder(fresh)
	m.activateBundles(ctx, order, m.prepare(ctx, order, true)) // on all cores (parallel.go)
	m.finishPrepared(order)
	m.reevaluate(ctx)
}

// unchanged reports whether candidate c has the content p last had.
func unchanged(p *plugin, c *Candidate) bool {
	if c.Manifest == nil || p.fingerprint.b == nil {
		return false
	}
	b, err := ReadBundle(c.Dir)
	return err == nil && Fingerprint(c.Manifest, b) == p.fingerprint.String()
}
