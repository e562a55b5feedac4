package contrib

// Replacement returns a resolution holding only the plugin entry that
// replaces target, without the default it would fall back to, or nil when
// no plugin replaces target. The memory target uses it (MC3): its
// replacement takes over the whole system prompt, and its None means "give
// up" — the host then assembles the prompt as if nothing replaced memory.
func (r *Resolution) Replacement(target string) *Resolution {
	for _, e := range r.Entries {
		if e.Target == target && e.Replaced {
			e.fallback = nil
			out := *r
			out.Entries = []Resolved{e}
			return &out
		}
	}
	return nil
}

// WithoutTarget returns the resolution without the entry standing for
// target (the default or its replacement).
func (r *Resolution) WithoutTarget(target string) *Resolution {
	out := *r
	out.Entries = nil
	for _, e := range r.Entries {
		if e.Target != target {
			out.Entries = append(out.Entries, e)
		}
	}
	return &out
}
