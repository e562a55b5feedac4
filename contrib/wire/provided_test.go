package wire

import (
	"bytes"
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

// starlarkish is a form other than the Go one; the stub never builds with it.
type starlarkish struct{ contrib.JSONBuilder }

// TestH26_4_StubTakesTheGoForm: a tool whose Run took another form gets,
// as a worker stub, the stub's form — the Go form, which it sends as JSON —
// by the one assignment of its Run: nothing else to reset.
func TestH26_4_StubTakesTheGoForm(t *testing.T) {
	var sent []byte
	call := func(_ context.Context, _, method string, in, _ any) error {
		if method == MethodTool {
			sent = append([]byte(nil), in.([]byte)...)
		}
		return nil
	}
	inWorker := contrib.WithArgsForm(func(context.Context, any) contrib.Result { return contrib.Result{} }, starlarkish{})
	p := &Provided{Group: 1, Tools: []contrib.Tool{{Name: "t", Catalogs: contrib.Work, Parameters: []byte("{}"), Run: inWorker}}}
	tools := p.HostTools("acme.p", contrib.Rules{}, call, func(context.Context) contrib.Facts { return contrib.Facts{} })
	if len(tools) != 1 || contrib.ArgsFormOf(p.Tools[0].Run) == nil {
		t.Fatalf("tools = %+v", tools)
	}
	if form := contrib.ArgsFormOf(tools[0].Run); form != nil {
		t.Fatalf("the stub takes %T, want the Go form", form)
	}
	tools[0].Run.Run(context.Background(), map[string]any{"n": 2})
	if !bytes.Contains(sent, []byte(`{"n":2}`)) {
		t.Fatalf("the stub sent %q, want the arguments as JSON", sent)
	}
}
