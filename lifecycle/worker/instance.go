package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// instance is a generation running in a worker: its contributions are
// stubs that call the worker.
type instance struct {
	p       *process
	call    Caller // calls the generation's slot in p
	release func() // ends the generation in p (Close)
	req     contrib.ActivationRequest
	set     *contrib.Set
	exports map[string]any // *Export by service name
	// probed: attaches lists the stages the worker said can run
	// (contrib.AttachProber); otherwise every stage is asked.
	probed   bool
	attaches []contrib.AttachStage
}

var _ contrib.Instance = (*instance)(nil)

func newInstance(p *process, call Caller, req contrib.ActivationRequest, b wire.Bundle, a wire.Activated) *instance {
	inst := &instance{p: p, call: call, req: req, exports: map[string]any{}, probed: a.Probed, attaches: a.Attaches}
	for _, name := range a.Exports {
		inst.exports[name] = &Export{Plugin: req.Plugin, Service: name, bundle: b}
	}
	// The worker validated every entry; staging again compiles the tool
	// schemas in the host (from the cache) and keeps one code path.
	st := contrib.NewStaging(req.Plugin, req.Rules)
	for i, t := range a.Tools {
		t.Run = inst.tool(i, t.Name)
		st.AddTool(t)
	}
	for i, c := range a.Commands {
		c.Run = inst.command(i, c.Name)
		st.AddCommand(c)
	}
	for i, ph := range a.Placeholders {
		ph.Resolve = inst.placeholder(i, ph.Name)
		st.AddPlaceholder(ph)
	}
	for _, f := range a.StatusFields {
		st.AddStatusField(f)
	}
	for i, h := range a.Hooks {
		h.Run = inst.hook(i)
		st.AddHook(h)
	}
	for i, e := range a.Points {
		e.Run = inst.point(i)
		st.AddPoint(e)
	}
	for i, pos := range a.Classifiers {
		st.AddClassifier(contrib.Classifier{Pos: pos, Classify: inst.classifier(i)})
	}
	for i, f := range a.Factories {
		cf := contrib.ClientFactory{Protocol: f.Protocol, Pos: f.Pos, Create: inst.factory(i, false)}
		if f.Multimodal {
			cf.CreateMultimodal = inst.factory(i, true)
		}
		st.AddClientFactory(cf)
	}
	inst.set = st.Set()
	inst.set.Diagnostics = append(own(req.Plugin, a.Diagnostics), inst.set.Diagnostics...)
	for _, dep := range slices.Sorted(maps.Keys(req.Providers)) {
		for _, v := range req.Providers[dep] {
			if _, ok := v.(*Export); !ok {
				inst.set.Diagnostics = append(inst.set.Diagnostics, contrib.Diag(contrib.IsolationUnsupported, req.Plugin, contrib.Pos{},
					"the services of %s, which runs in the host process, do not reach plugins in process isolation; run both the same way", dep))
				break
			}
		}
	}
	return inst
}

func (inst *instance) facts() contrib.Facts {
	if inst.req.Services == nil {
		return contrib.Facts{}
	}
	return inst.req.Services.Facts()
}

func (inst *instance) tool(i int, name string) contrib.ToolFunc {
	return wire.ToolStub(wire.Caller(inst.call), inst.facts, nil, i, name)
}

// providedTools are a tool_provider's tools (MC2), run in the worker.
func (inst *instance) providedTools(p *wire.Provided) []contrib.Tool {
	return p.HostTools(inst.req.Plugin, inst.req.Rules, wire.Caller(inst.call), inst.facts)
}

func (inst *instance) command(i int, name string) contrib.CommandFunc {
	what := "command /" + name
	return func(ctx context.Context, cmd contrib.Invocation) (string, bool, error) {
		out, err := inst.ask(ctx, what, wire.MethodCommand, wire.Invoke{Index: i, Inv: cmd, Facts: inst.facts()})
		if err == nil && out.OK && len(out.Parts) > 0 {
			// The worker checked them; the host does not take its word.
			if _, perr := contrib.CommandParts(out.Parts); perr != nil {
				return "", false, fmt.Errorf("%s: result: %v", what, perr)
			}
			if sink := contrib.PartsSinkFrom(ctx); sink != nil {
				sink(out.Parts)
			}
		}
		return out.Text, out.OK, err
	}
}

func (inst *instance) placeholder(i int, name string) contrib.ResolveFunc {
	what := "placeholder {{" + name + "}}"
	return func(ctx context.Context, site contrib.Site) (string, bool, error) {
		return inst.outcome(ctx, what, wire.MethodPlaceholder, wire.Invoke{Index: i, Site: site, Facts: inst.facts()})
	}
}

func (inst *instance) outcome(ctx context.Context, what, method string, in any) (string, bool, error) {
	out, err := inst.ask(ctx, what, method, in)
	return out.Text, out.OK, err
}

// ask makes one call whose answer is an Outcome; a failed callback comes
// back as its diagnostic error.
func (inst *instance) ask(ctx context.Context, what, method string, in any) (wire.Outcome, error) {
	var out wire.Outcome
	if err := inst.call(ctx, what, method, in, &out); err != nil {
		return out, failureError(inst.req.Plugin, err)
	}
	if out.Err != nil {
		return out, &wire.DiagError{D: own(inst.req.Plugin, []contrib.Diagnostic{*out.Err})[0]}
	}
	return out, nil
}

func (inst *instance) hook(i int) contrib.HookFunc {
	return func(ctx context.Context, event contrib.HookEvent, payload map[string]any) (any, error) {
		out, err := inst.ask(ctx, "hook "+string(event), wire.MethodHook,
			wire.Invoke{Index: i, Event: event, Payload: payload, Facts: inst.facts()})
		if err != nil {
			return nil, err
		}
		return out.Result(nil)
	}
}

func (inst *instance) point(i int) contrib.PointFunc {
	return func(ctx context.Context, call contrib.PointCall) (any, error) {
		out, err := inst.ask(ctx, string(call.Point)+" entry", wire.MethodPoint, wire.Invoke{Index: i, Call: &call, Facts: inst.facts()})
		if err != nil {
			return nil, err
		}
		return out.Result(inst.providedTools)
	}
}

func (inst *instance) classifier(i int) contrib.ClassifyFunc {
	return func(ctx context.Context, tool string, args any) (contrib.Classification, bool, error) {
		raw, err := json.Marshal(args)
		if err != nil {
			return contrib.Classification{}, false, err
		}
		out, err := inst.ask(ctx, "classifier", wire.MethodClassify, wire.Invoke{Index: i, Tool: tool, Args: raw, Facts: inst.facts()})
		return out.Class, out.OK, err
	}
}

var _ contrib.Starter = (*instance)(nil)

// Start starts the generation's timers in the worker. They run under a gate
// of the worker's own: closing (killing) the worker stops them.
func (inst *instance) Start(*contrib.Gate) {
	go func() { _ = inst.call(context.Background(), "start", wire.MethodStart, nil, nil) }()
}

// Set returns the generation's contributions (stubs).
func (inst *instance) Set() *contrib.Set { return inst.set }

// Exports returns the exported services as *Export values.
func (inst *instance) Exports() map[string]any { return inst.exports }

var _ contrib.AttachProber = (*instance)(nil)

// Attaches reports whether stage can do anything for the generation, as the
// worker said when it activated it.
func (inst *instance) Attaches(stage contrib.AttachStage) bool {
	return !inst.probed || slices.Contains(inst.attaches, stage)
}

// Attach runs one attach stage in the worker.
func (inst *instance) Attach(ctx context.Context, stage contrib.AttachStage) (bool, error) {
	var out wire.Outcome
	if err := inst.call(ctx, string(stage), wire.MethodAttach, wire.Attach{Stage: stage, Facts: inst.facts()}, &out); err != nil {
		return true, failureError(inst.req.Plugin, err)
	}
	if out.Err != nil {
		return true, &wire.DiagError{D: own(inst.req.Plugin, []contrib.Diagnostic{*out.Err})[0]}
	}
	return out.OK, nil
}

// Close ends the worker. It is idempotent.
func (inst *instance) Close() {
	if inst.release != nil {
		inst.release()
	}
}

// factory creates a codec in the worker; the codec stays there and is
// called by handle.
func (inst *instance) factory(i int, multimodal bool) contrib.CreateFunc {
	return func(ctx context.Context, req contrib.ClientRequest) (contrib.Codec, error) {
		var out wire.Created
		err := inst.call(ctx, "client_factory", wire.MethodFactoryCreate,
			wire.Invoke{Index: i, Client: &req, Multimodal: multimodal, Facts: inst.facts()}, &out)
		switch {
		case err != nil:
			return nil, failureError(inst.req.Plugin, err)
		case out.NotSupported:
			return nil, contrib.NotSupported("%s", strings.TrimPrefix(out.Err, contrib.ErrNotSupported.Error()+": "))
		case out.Err != "":
			return nil, errors.New(out.Err)
		}
		return &remoteCodec{inst: inst, id: out.Codec}, nil
	}
}

// remoteCodec is a codec that lives in the worker.
type remoteCodec struct {
	inst *instance
	id   uint64
}

func (c *remoteCodec) Encode(ctx context.Context, req contrib.ModelRequest) (contrib.HTTPCall, error) {
	var out contrib.HTTPCall
	if err := c.inst.call(ctx, "codec encode", wire.MethodCodecEncode, wire.CodecCall{Codec: c.id, Request: req}, &out); err != nil {
		return out, callError(err)
	}
	return out, nil
}

func (c *remoteCodec) Decode(ctx context.Context, resp contrib.HTTPResponse) (contrib.ModelReply, error) {
	var out contrib.ModelReply
	if err := c.inst.call(ctx, "codec decode", wire.MethodCodecDecode, wire.CodecCall{Codec: c.id, Response: resp}, &out); err != nil {
		return out, callError(err)
	}
	return out, nil
}

// callError is a failed call's error with the worker's message.
func callError(err error) error {
	var re *wire.RemoteError
	if errors.As(err, &re) {
		return errors.New(re.Message)
	}
	return err
}
