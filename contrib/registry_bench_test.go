package contrib

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkRegistryRepublish replaces one generation among n published
// one-tool plugins: the catalog view rebuild every reload pays.
func BenchmarkRegistryRepublish(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := NewRegistry(RegistryOptions{})
			set := func(i int) *Set {
				st := NewStaging(fmt.Sprintf("p%05d", i), Rules{})
				st.AddTool(Tool{Name: fmt.Sprintf("echo_%d", i), Catalogs: Work,
					Parameters: []byte(`{"type": "object"}`),
					Run:        ToolFunc(func(context.Context, any) Result { return Result{} })})
				return st.Set()
			}
			done := r.Defer()
			for i := range n {
				r.Publish(&Published{Plugin: fmt.Sprintf("p%05d", i), Generation: "g0", Rank: i, Set: set(i), Gate: NewGate()})
			}
			done()
			s := set(n / 2)
			b.ResetTimer()
			for i := range b.N {
				r.Publish(&Published{Plugin: fmt.Sprintf("p%05d", n/2), Generation: fmt.Sprint("g", i+1), Rank: n / 2, Set: s, Gate: NewGate()})
			}
		})
	}
}
