package contrib

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCC6_KeptOrderMatchesAFullSort: the catalog order the registry keeps
// between rebuilds (binary-search insertion on publish, one pass on
// revocation, one sort after a deferred batch) is exactly a fresh sort of the
// live generations, whatever mix of publications, replacements and
// revocations led there.
func TestCC6_KeptOrderMatchesAFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	r := NewRegistry(RegistryOptions{})
	live := map[string]string{}
	check := func(step string) {
		t.Helper()
		got := r.View().order
		want := slices.Clone(got)
		slices.SortFunc(want, catalogOrder)
		if len(got) != len(live) || !slices.Equal(got, want) {
			t.Fatalf("%s: view order %d entries, not the catalog order of %d live generations", step, len(got), len(live))
		}
		for _, p := range got {
			if live[p.Plugin] != p.Generation {
				t.Fatalf("%s: the view holds %s %s; the live generation is %q", step, p.Plugin, p.Generation, live[p.Plugin])
			}
		}
	}
	gen := 0
	pub := func(i int) {
		gen++
		id := fmt.Sprintf("p%02d", i)
		src := []Source{SourceDev, SourceHome, SourceBuiltin}[i%3]
		p := &Published{Plugin: id, Generation: fmt.Sprint("g", gen), Rank: i % 7, Source: src, Set: &Set{Plugin: id}, Gate: NewGate()}
		r.Publish(p)
		live[id] = p.Generation
	}
	done := r.Defer()
	for i := range 30 {
		pub(i)
	}
	done()
	check("after a deferred start")
	for step := range 300 {
		i := rng.IntN(40)
		id := fmt.Sprintf("p%02d", i)
		switch rng.IntN(3) {
		case 0, 1:
			pub(i)
		case 2:
			if g, ok := live[id]; ok {
				r.Revoke(id, g)
				delete(live, id)
			}
		}
		check(fmt.Sprint("step ", step))
	}
	r.RevokeAll(live)
	clear(live)
	check("after revoking everything")
}
