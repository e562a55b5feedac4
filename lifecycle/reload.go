package lifecycle

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/crystal-star/crystal-star/contrib"
)

// Reload re-reads the plugin in dir and, when its content fingerprint
// changed, replaces its generation make-before-break (AT2): the next
// generation is built while the current one serves and replaces it in one
// publication. Any failure of the next generation keeps the current one
// serving (AT3). Consumers of a replaced provider are rebuilt on its new
// exports the same way, providers first (DC13).
//
// It returns an error exactly when the content found in dir did not go
// live: ErrUnknownPlugin (wrapped) when dir holds no known plugin, an
// *contrib.ActivationError with the attempt's diagnostics when the manifest
// or the next generation failed (the previous generation, if any, keeps
// serving), a *BlockedError when the plugin is blocked. An unchanged
// fingerprint, or a reload deferred until the previous generation's
// teardown ends (DC26), is not an error.
func (m *Manager) Reload(ctx context.Context, dir string) error {
	m.op.Lock()
	defer m.op.Unlock()
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("reload %s: %w", dir, err)
	}
	var p *plugin
	m.mu.RLock()
	for _, q := range m.plugins {
		if q.cand.Dir == abs {
			p = q
		}
	}
	m.mu.RUnlock()
	if p == nil {
		return fmt.Errorf("reload %s: %w", dir, ErrUnknownPlugin)
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
		return &contrib.ActivationError{Diagnostics: slices.Clone(fresh.Diagnostics)}
	}
	bundle, err := ReadBundle(fresh.Dir)
	if err != nil {
		bundle = nil // activate reports the read error
	}
	m.mu.Lock()
	p.cand = fresh
	m.mu.Unlock()
	before := p.gen
	changed := map[string]bool{}
	attempt := m.activate(ctx, p, bundle)
	if p.gen != before && before != nil {
		// Replaced: consumers rebuild on the new exports. Stopped: they
		// stopped first and are now blocked on it.
		for _, q := range m.consumersOf(fresh.Manifest.ID) {
			was := q.gen
			q.stale = was != nil
			m.activate(ctx, q, nil)
			if q.gen != nil && q.gen != was {
				changed[q.cand.ID()] = true
			}
		}
	}
	if p.gen != nil && p.gen != before {
		changed[fresh.Manifest.ID] = true
	}
	if len(changed) > 0 {
		m.attachAll(ctx, changed)
	}
	m.reevaluate(ctx)
	return attempt
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

// Overdue returns every generation ("plugin@generation") whose calls did
// not drain within the cleanup timeout, oldest first, since the manager
// was created: Close's caller reports those of its own Close.
func (m *Manager) Overdue() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Clone(m.overdue)
}

// dirs returns the directories of every discovered plugin (for watching).
func (m *Manager) dirs() []string {
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
