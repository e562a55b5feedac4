package lifecycle

import (
	"runtime/metrics"
	"slices"
)

// Reclaim bookkeeping (DC27). A retired generation is watched through a weak
// pointer to its contribution set; it counts as leaked once the collector
// has completed two cycles since its teardown finished and the set is still
// reachable. Observing that costs two things per generation if done
// naively — a read of the collector's cycle counter when the teardown
// finishes, and a scan of the retired list on every deactivation — which
// makes stopping n plugins quadratic. Here both are batched: a bulk
// deactivation (Close, a rescan, a re-evaluation) reads the counter once for
// the whole batch, and the list is pruned only when it has doubled since the
// last prune, so its upkeep is amortised constant per generation.

// readGCCycles returns the number of completed collections plus one (never
// 0, which marks a teardown still pending). It never forces a collection.
func readGCCycles() uint64 {
	sample := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64() + 1
}

// gcCycles reads the collector's cycle counter through the manager's hook
// (tests count the reads).
func (m *Manager) gcCycles() uint64 {
	if m.cycles != nil {
		return m.cycles()
	}
	return readGCCycles()
}

// retire records a deactivated generation for reclaim tracking; m.mu is
// held. Generations the collector already released are forgotten, but only
// when the list has doubled since it was last pruned: pruning on every call
// would scan the whole list once per deactivation.
func (m *Manager) retire(r *retiredGen) {
	if len(m.retired) >= 2*max(m.retiredPruned, 8) {
		m.pruneRetired()
	}
	m.retired = append(m.retired, r)
}

// pruneRetired drops the generations the collector has released; m.mu is
// held.
func (m *Manager) pruneRetired() {
	m.retired = slices.DeleteFunc(m.retired, func(r *retiredGen) bool { return r.ref.Value() == nil })
	m.retiredPruned = len(m.retired)
}

// tornDown marks r's teardown finished; m.mu is held. Inside a batch the
// cycle counter is read once when the batch ends (endBatch); otherwise now.
// Stamping at the end of the batch is conservative: a generation can only
// count as leaked later, never earlier.
func (m *Manager) tornDown(r *retiredGen) {
	if m.batching {
		m.unstamped = append(m.unstamped, r)
		return
	}
	r.doneCycles = m.gcCycles()
}

// beginBatch starts a bulk deactivation; m.op is held.
func (m *Manager) beginBatch() {
	m.mu.Lock()
	m.batching = true
	m.mu.Unlock()
}

// endBatch stamps every teardown the batch finished with one read of the
// cycle counter; m.op is held.
func (m *Manager) endBatch() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.batching = false
	if len(m.unstamped) == 0 {
		return
	}
	cycles := m.gcCycles()
	for _, r := range m.unstamped {
		r.doneCycles = cycles
	}
	m.unstamped = nil
}

// deactivateAll deactivates ps in reverse order (consumers listed after
// their providers stop first, DC13) as one batch: every handle is revoked in
// one registry step, then each generation drains and tears down as in
// deactivate, and reclaim is observed once for the batch. m.op is held.
func (m *Manager) deactivateAll(ps []*plugin) {
	gens := map[string]string{}
	for _, p := range ps {
		if g := p.gen; g != nil {
			gens[g.pub.Plugin] = g.id
		}
	}
	if len(gens) == 0 {
		return
	}
	// DC26: every handle is revoked first, so old snapshots get
	// tool_unavailable; deactivate's own revoke then finds nothing to do.
	m.opts.Registry.RevokeAll(gens)
	m.beginBatch()
	defer m.endBatch()
	for i := len(ps) - 1; i >= 0; i-- {
		m.deactivate(ps[i])
	}
}
