package wire

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"

	"github.com/crystal-star/crystal-star/contrib"
)

// MethodReleaseTools tells the worker the host holds none of the tools of
// a tool_provider answer any more: uint64 group → nothing.
const MethodReleaseTools = "release_tools"

// Caller calls the other side under the callback timeout; what names the
// callback in a timeout's message.
type Caller func(ctx context.Context, what, method string, in, out any) error

// Provided is a tool_provider entry's answer (MC2): the tools as declared,
// without their implementations, which stay in the worker under Group.
type Provided struct {
	Group uint64         `json:"group"`
	Tools []contrib.Tool `json:"tools,omitempty"`
}

// group keeps a provided group alive in the worker while the host can
// still reach one of its tools: every stub holds it.
type group struct{ id uint64 }

// ToolStub is a host tool whose implementation is tool i of the worker:
// of the generation's own tools (g nil) or of a tool_provider answer. A
// ctx carrying a progress receiver gets the tool's ctx.progress reports.
func ToolStub(call Caller, facts func(context.Context) contrib.Facts, g *group, i int, name string) contrib.ToolFunc {
	what := "tool " + name
	return func(ctx context.Context, args any) contrib.Result {
		raw, err := json.Marshal(args)
		if err != nil {
			return contrib.Failure(contrib.ErrInvalidArguments, err.Error())
		}
		in := Invoke{Index: i, Args: raw, Facts: facts(ctx), Progress: contrib.ProgressFrom(ctx) != nil}
		if g != nil {
			in.Group = g.id
		}
		var res contrib.Result
		if err := call(ctx, what, MethodTool, AppendToolInvoke(nil, in), toolReply{&res}); err != nil {
			// A dead worker's failure says whose fault it was (issue 24).
			var c interface{ ToolCause() string }
			cause := ""
			if errors.As(err, &c) {
				cause = c.ToolCause()
			}
			return contrib.FailureWithCause(contrib.ErrToolFailed, cause, err.Error())
		}
		return res
	}
}

// HostTools returns the provided tools as tools of plugin in the host,
// each calling the worker. They are staged again, so their schemas are
// compiled in this process (the worker validated them and reported their
// problems already). Once the host holds none of them — the planning that
// asked is over — the worker is told to drop their implementations.
func (p *Provided) HostTools(plugin string, rules contrib.Rules, call Caller, facts func(context.Context) contrib.Facts) []contrib.Tool {
	g := &group{id: p.Group}
	st := contrib.NewStaging(plugin, rules)
	for i, t := range p.Tools {
		t.Run = ToolStub(call, facts, g, i, t.Name)
		st.AddTool(t)
	}
	runtime.AddCleanup(g, func(id uint64) {
		// Cleanups share one goroutine: the call must not hold it.
		go func() { _ = call(context.Background(), "release tools", MethodReleaseTools, id, nil) }()
	}, p.Group)
	return st.Set().Tools
}
