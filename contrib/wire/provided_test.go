package wire

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
)

// When the host holds none of a tool_provider answer's tools any more (the
// planning that asked is over), the worker is told to drop them: a worker
// does not accumulate one answer per planning.
func TestProvidedToolsReleasedWhenDropped(t *testing.T) {
	released := make(chan uint64, 1)
	call := func(_ context.Context, _, method string, in, _ any) error {
		if method == MethodReleaseTools {
			released <- in.(uint64)
		}
		return nil
	}
	func() {
		p := &Provided{Group: 9, Tools: []contrib.Tool{{Name: "t", Catalogs: contrib.Work, Parameters: []byte("{}")}}}
		if tools := p.HostTools("acme.p", contrib.Rules{}, call, func(context.Context) contrib.Facts { return contrib.Facts{} }); len(tools) != 1 {
			t.Fatalf("tools = %+v", tools)
		}
	}()
	// Cleanups run after a collection, on their own goroutine: collect
	// until the release arrives, a bounded number of times.
	for range 1000 {
		runtime.GC()
		select {
		case g := <-released:
			if g != 9 {
				t.Fatalf("released group %d, want 9", g)
			}
			return
		case <-time.After(time.Millisecond):
		}
	}
	t.Fatal("the worker was never told to release the dropped tools")
}
