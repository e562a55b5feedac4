package starhost_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestH26_4_TrivialCallAllocates: a trivial call to a Starlark tool
// (BenchmarkH26_4_Guards/Trivial's echo) allocates at most 9 times: its
// arguments are decoded once, straight into Starlark values, by a pooled
// parser. Decoded into Go values and then converted, the call made 14.
func TestH26_4_TrivialCallAllocates(t *testing.T) {
	snap := guardsHost(t).Session().Thread("").Tools(context.Background(), starhost.Work)
	args := json.RawMessage(`{"text":"hello"}`)
	ctx := context.Background()
	allocs := testing.AllocsPerRun(500, func() {
		if res := snap.Invoke(ctx, "echo", args); res.Error != nil || res.Text != "hello" {
			t.Fatalf("echo: %+v", res)
		}
	})
	if allocs > 9 {
		t.Errorf("a trivial call allocates %.0f times; want at most 9", allocs)
	}
}
