package lifecycle

// LeakedBy returns, per plugin id, how many of its deactivated generations
// are leaked by the rule of Stats: still reachable two garbage collections
// after their teardown finished (DC27, MC9). It never forces a collection.
// The host puts these counts on each plugin's projection so the operator
// sees them (plugins --json, dev /plugins), not only the embedder.
func (m *Manager) LeakedBy() map[string]int {
	cycles := m.gcCycles()
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := map[string]int{}
	for _, r := range m.retired {
		if r.ref.Value() != nil && r.doneCycles != 0 && cycles >= r.doneCycles+2 {
			out[r.plugin]++
		}
	}
	return out
}
