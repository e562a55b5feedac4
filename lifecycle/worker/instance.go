package worker

import (
	"context"
	"encoding/json"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// instance is a generation running in a worker: its contributions are
// stubs that call the worker.
type instance struct {
	p   *process
	req contrib.ActivationRequest
	set *contrib.Set
}

var _ contrib.Instance = (*instance)(nil)

func newInstance(p *process, req contrib.ActivationRequest, a wire.Activated) *instance {
	inst := &instance{p: p, req: req}
	// The worker validated every entry; staging again compiles the tool
	// schemas in the host (from the cache) and keeps one code path.
	st := contrib.NewStaging(req.Plugin, req.Rules)
	for i, t := range a.Tools {
		st.AddTool(contrib.Tool{Name: t.Name, Description: t.Description, Catalogs: t.Catalogs, Parameters: t.Parameters,
			ReadOnly: t.ReadOnly, Pos: t.Pos, Run: inst.tool(i, t.Name)})
	}
	for i, c := range a.Commands {
		st.AddCommand(contrib.Command{Name: c.Name, Aliases: c.Aliases, Description: c.Description, Order: c.Order,
			Pos: c.Pos, Run: inst.command(i, c.Name)})
	}
	for i, ph := range a.Placeholders {
		st.AddPlaceholder(contrib.Placeholder{Name: ph.Name, Pos: ph.Pos, Resolve: inst.placeholder(i, ph.Name)})
	}
	for _, f := range a.StatusFields {
		st.AddStatusField(f)
	}
	inst.set = st.Set()
	inst.set.Diagnostics = append(a.Diagnostics, inst.set.Diagnostics...)
	return inst
}

func (inst *instance) facts() contrib.Facts {
	if inst.req.Services == nil {
		return contrib.Facts{}
	}
	return inst.req.Services.Facts()
}

func (inst *instance) tool(i int, name string) contrib.ToolFunc {
	what := "tool " + name
	return func(ctx context.Context, args any) contrib.Result {
		raw, err := json.Marshal(args)
		if err != nil {
			return contrib.Failure(contrib.ErrInvalidArguments, err.Error())
		}
		var res contrib.Result
		if err := inst.p.call(ctx, what, wire.MethodTool, wire.Invoke{Index: i, Args: raw, Facts: inst.facts()}, &res); err != nil {
			return contrib.Failure(contrib.ErrToolFailed, asFailure(err).Message)
		}
		return res
	}
}

func (inst *instance) command(i int, name string) contrib.CommandFunc {
	what := "command /" + name
	return func(ctx context.Context, cmd contrib.Invocation) (string, bool, error) {
		return inst.outcome(ctx, what, wire.MethodCommand, wire.Invoke{Index: i, Inv: cmd, Facts: inst.facts()})
	}
}

func (inst *instance) placeholder(i int, name string) contrib.ResolveFunc {
	what := "placeholder {{" + name + "}}"
	return func(ctx context.Context, site contrib.Site) (string, bool, error) {
		return inst.outcome(ctx, what, wire.MethodPlaceholder, wire.Invoke{Index: i, Site: site, Facts: inst.facts()})
	}
}

func (inst *instance) outcome(ctx context.Context, what, method string, in any) (string, bool, error) {
	var out wire.Outcome
	if err := inst.p.call(ctx, what, method, in, &out); err != nil {
		return "", false, failureError(inst.req.Plugin, err)
	}
	if out.Err != nil {
		return "", false, &diagError{*out.Err}
	}
	return out.Text, out.OK, nil
}

// Set returns the generation's contributions (stubs).
func (inst *instance) Set() *contrib.Set { return inst.set }

// Exports returns nothing: exported services are Starlark values, which do
// not cross processes (docs/isolation.md).
func (inst *instance) Exports() map[string]any { return map[string]any{} }

// Attach runs one attach stage in the worker.
func (inst *instance) Attach(ctx context.Context, stage contrib.AttachStage) (bool, error) {
	var out wire.Outcome
	if err := inst.p.call(ctx, string(stage), wire.MethodAttach, wire.Attach{Stage: stage, Facts: inst.facts()}, &out); err != nil {
		return true, failureError(inst.req.Plugin, err)
	}
	if out.Err != nil {
		return true, &diagError{*out.Err}
	}
	return out.OK, nil
}

// Close ends the worker. It is idempotent.
func (inst *instance) Close() { inst.p.close() }
