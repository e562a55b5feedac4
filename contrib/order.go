package contrib

import (
	"cmp"
	"slices"
)

// The registry keeps its generations in catalog order between rebuilds, so
// a publication with n plugins loaded costs a binary search and a copy
// instead of sorting all n again (a reload with 10,000 plugins spent half
// its rebuild sorting). A batch — a deferred start, a bulk revocation —
// marks the order stale and the next rebuild sorts once.

// catalogOrder is the catalog order (CC6): built-in plugins, then disk
// plugins by load order (rank), then by id.
func catalogOrder(a, b *Published) int {
	if a.Source == SourceBuiltin != (b.Source == SourceBuiltin) {
		if a.Source == SourceBuiltin {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Plugin, b.Plugin))
}

// placed updates r.sorted for p replacing old (nil: none) in r.gens; r.mu
// is held. While deferring, the order is left stale for the rebuild.
func (r *Registry) placed(old, p *Published) {
	if !r.sortedOK || r.deferring > 0 {
		r.sortedOK = false
		return
	}
	if old != nil {
		i, found := slices.BinarySearchFunc(r.sorted, old, catalogOrder)
		if !found || r.sorted[i] != old {
			r.sortedOK = false
			return
		}
		r.sorted = slices.Delete(r.sorted, i, i+1)
	}
	i, _ := slices.BinarySearchFunc(r.sorted, p, catalogOrder)
	r.sorted = slices.Insert(r.sorted, i, p)
}

// unplaced drops the generations of the removed plugins from r.sorted in
// one pass; r.mu is held.
func (r *Registry) unplaced(removed map[string]bool) {
	if r.sortedOK {
		r.sorted = slices.DeleteFunc(r.sorted, func(p *Published) bool { return removed[p.Plugin] })
	}
}

// ordered returns a copy of r.gens in catalog order, sorting only when the
// kept order is stale; r.mu is held.
func (r *Registry) ordered() []*Published {
	if !r.sortedOK {
		r.sorted = r.sorted[:0]
		for _, p := range r.gens {
			r.sorted = append(r.sorted, p)
		}
		slices.SortFunc(r.sorted, catalogOrder)
		r.sortedOK = true
	}
	return slices.Clone(r.sorted)
}
