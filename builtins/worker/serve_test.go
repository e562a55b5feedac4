package worker

import (
	"context"
	"io"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

const providerPlugin = `
def slow(ctx, args):
    ctx.progress(1, 2, "half")
    ctx.progress(2, 2)
    return "done"

def offer(ctx, planning):
    return [tool(name = "offered", catalogs = "work", read_only = True, namespace = "acme.x",
                 run = lambda ctx, args: "offered for " + planning["catalog"])]

contribute(
    tools = [tool(name = "slow", catalogs = "work", run = slow)],
    tool_providers = [tool_provider(run = offer)],
)
`

// serveInProcess runs Serve on a pipe pair and returns the host's end,
// with the generation of plugin.star activated.
func serveInProcess(t *testing.T, src string) (*wire.Conn, wire.Activated) {
	t.Helper()
	hr, ww := io.Pipe()
	wr, hw := io.Pipe()
	go func() { _ = Serve(wr, ww) }()
	h := NewHostSide(contrib.ActivationRequest{Plugin: "acme.x", Services: &fakeServices{}}, nil)
	conn := wire.NewConn(hr, hw, h.Handle, h.Notify)
	go func() { _ = conn.Serve() }()
	t.Cleanup(func() { _ = hw.Close(); _ = hr.Close() })
	var a wire.Activated
	b := wire.Bundle{Plugin: "acme.x", Generation: "g1", Entry: "plugin.star", Files: map[string][]byte{"plugin.star": []byte(src)}}
	if err := conn.Call(context.Background(), wire.MethodActivate, b, &a); err != nil || a.Failed {
		t.Fatalf("activate: %v %+v", err, a.Diagnostics)
	}
	return conn, a
}

func call(conn *wire.Conn) wire.Caller {
	return func(ctx context.Context, _, method string, in, out any) error { return conn.Call(ctx, method, in, out) }
}

func noFacts(context.Context) contrib.Facts { return contrib.Facts{} }

// ctx.progress of a tool in a worker reaches the receiver of the host's
// call, in order, before the result (issue 11: what Starlark sees is
// unchanged across the boundary).
func TestProgressCrossesTheChannel(t *testing.T) {
	conn, a := serveInProcess(t, providerPlugin)
	if len(a.Tools) != 1 {
		t.Fatalf("tools = %+v", a.Tools)
	}
	var got []string
	ctx := contrib.WithProgress(context.Background(), func(done, total float64, msg string) {
		got = append(got, msg)
		if len(got) == 1 && (done != 1 || total != 2) {
			t.Errorf("first report %v/%v, want 1/2", done, total)
		}
	})
	res := wire.ToolStub(call(conn), noFacts, nil, 0, "slow")(ctx, map[string]any{})
	if res.Text != "done" || len(got) != 2 || got[0] != "half" {
		t.Fatalf("result %+v, reports %q; want done after [half, \"\"]", res, got)
	}
}

// A tool_provider's tools come back to the host with their fields and run
// in the worker; once released, a call answers tool_unavailable.
func TestProvidedToolsRunInTheWorker(t *testing.T) {
	conn, a := serveInProcess(t, providerPlugin)
	if len(a.Points) != 1 || a.Points[0].Point != contrib.PointToolProvider {
		t.Fatalf("points = %+v", a.Points)
	}
	var out wire.Outcome
	in := wire.Invoke{Index: 0, Call: &contrib.PointCall{Point: contrib.PointToolProvider, Input: map[string]any{"catalog": "work"}}}
	if err := conn.Call(context.Background(), wire.MethodPoint, in, &out); err != nil {
		t.Fatal(err)
	}
	v, err := out.Result(func(p *wire.Provided) []contrib.Tool {
		return p.HostTools("acme.x", contrib.Rules{}, call(conn), noFacts)
	})
	tools, _ := v.([]contrib.Tool)
	if err != nil || len(tools) != 1 || tools[0].Namespace != "acme.x" || !tools[0].ReadOnly {
		t.Fatalf("provided = %+v, %v", v, err)
	}
	if res := tools[0].Run.Run(context.Background(), map[string]any{}); res.Text != "offered for work" {
		t.Fatalf("provided tool = %+v", res)
	}
	if err := conn.Call(context.Background(), wire.MethodReleaseTools, out.Provided.Group, nil); err != nil {
		t.Fatal(err)
	}
	if res := tools[0].Run.Run(context.Background(), map[string]any{}); res.Err == nil || res.Err.Code != contrib.ErrToolUnavailable {
		t.Fatalf("after release = %+v, want tool_unavailable", res)
	}
}
