package lifecycle

import (
	"context"
	"path/filepath"
	"slices"
)

// Reload re-reads the plugin in dir and, when its content fingerprint
// changed, replaces its generation (AT2, AT3): a source that does not
// compile keeps the active generation; a failure while executing leaves the
// plugin faulted. Consumers of the plugin stop first and are activated again
// after it (DC13). It reports whether dir is a known plugin.
func (m *Manager) Reload(ctx context.Context, dir string) bool {
	m.op.Lock()
	defer m.op.Unlock()
	abs, _ := filepath.Abs(dir)
	var p *plugin
	m.mu.RLock()
	for _, q := range m.plugins {
		if q.cand.Dir == abs {
			p = q
		}
	}
	m.mu.RUnlock()
	if p == nil {
		return false
	}
	fresh := &Candidate{Dir: p.cand.Dir, Name: p.cand.Name, Display: p.cand.Display, Source: p.cand.Source,
		Rank: p.cand.Rank, Shadowed: p.cand.Shadowed, KnownID: p.cand.ID()}
	fresh.load()
	for _, d := range fresh.Diagnostics {
		m.note(d)
	}
	if fresh.Manifest == nil {
		// An unusable manifest is like a compile error: keep what runs;
		// with nothing running it is a preflight blocker (DC24).
		m.mu.Lock()
		p.diags = slices.Clone(fresh.Diagnostics)
		if p.gen == nil {
			p.cand, p.state, p.blockers = fresh, Blocked, manifestBlockers(fresh)
		}
		m.mu.Unlock()
		return true
	}
	id := fresh.Manifest.ID
	consumers := m.consumersOf(id)
	bundle, err := ReadBundle(fresh.Dir)
	if err != nil {
		bundle = nil // activate reports the read error
	}
	replacing := p.gen == nil || bundle == nil || Fingerprint(fresh.Manifest, bundle) != p.gen.fp
	if replacing && p.gen != nil && bundle != nil {
		// AT3: a source that does not compile replaces nothing, so the
		// consumers keep running too.
		if err := m.opts.Activator.Compile(m.requestFor(p, fresh, bundle, "")); err != nil {
			m.compileFailed(p, err)
			return true
		}
	}
	if replacing {
		for i := len(consumers) - 1; i >= 0; i-- {
			m.deactivate(consumers[i])
		}
	} else {
		consumers = nil
	}
	m.mu.Lock()
	p.cand = fresh
	m.mu.Unlock()
	m.activateAndAttach(ctx, append([]*plugin{p}, consumers...), bundle)
	m.reevaluate(ctx)
	return true
}

// Close deactivates every plugin, consumers before providers, and waits for
// every teardown, even past the cleanup timeout (DC27). It does not wait for
// reclaim: every handle is revoked in one step and the collector's progress
// is read once for the whole batch, so Close is linear in the number of
// plugins.
func (m *Manager) Close(ctx context.Context) {
	m.closing.Store(true)
	m.op.Lock()
	m.mu.RLock()
	ps := m.dependencyOrder(slices.Clone(m.plugins))
	m.mu.RUnlock()
	m.deactivateAll(ps) // one revocation, one reclaim observation (reclaim.go)
	m.op.Unlock()
	m.pending.Wait()
}

// Dirs returns the directories of every discovered plugin (for watching).
func (m *Manager) Dirs() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, len(m.plugins))
	for i, p := range m.plugins {
		out[i] = p.cand.Dir
	}
	return out
}

// Reattach runs `attach` of every active plugin again, as when the skill or
// external-tool catalogs reload (CC3).
func (m *Manager) Reattach(ctx context.Context) {
	m.op.Lock()
	defer m.op.Unlock()
	m.attachAll(ctx, map[string]bool{})
}
