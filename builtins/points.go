package builtins

import (
	"context"
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// The contribution points (DC1–DC3, DC9–DC12) as Starlark sees them. Every
// point of contrib.Points that is not served by its own kind gets, from the
// table alone: a constructor named after the point, a contribute() keyword,
// and an adapter from its entries to contrib.PointFunc. Targets, their
// orders and the scopes are predeclared constants.

// PointRegistrar is implemented by Services that accept entries at run time
// (ctx.contributions, DC11). contrib.Registry implements it.
type PointRegistrar interface {
	AddEntry(plugin, gen string, e contrib.PointEntry) (*contrib.Handle, error)
	ReleaseEntry(plugin, id string) bool
}

// pointSpec is what a point constructor records besides run.
type pointSpec struct {
	point   *contrib.Point
	order   int
	replace string
	scope   contrib.Scope // "" when not given
}

// pointCallKey carries the point call of a callback in its context, for
// ctx.thread and ctx.contributions.
type pointCallKey struct{}

type pointCall struct {
	point  *contrib.Point // nil for hooks
	thread string
}

// pointPredeclared are the names generated from the point table: a
// constructor per point not served by its own kind, and the TARGET_ and
// ORDER_ constants of its named defaults.
func pointPredeclared() starlark.StringDict {
	names := starlark.StringDict{}
	for i := range contrib.Points {
		p := &contrib.Points[i]
		if p.Kind {
			continue
		}
		names[string(p.Name)] = pointConstructor(p)
		for _, t := range p.Targets {
			names["TARGET_"+strings.ToUpper(t.Name)] = starlark.String(t.Name)
			names["ORDER_"+strings.ToUpper(t.Name)] = starlark.MakeInt(t.Order)
		}
	}
	return names
}

// pointLists are contribute()'s keywords generated from the point table, in
// its order.
func pointLists() []listKind {
	var lists []listKind
	for _, p := range contrib.Points {
		if !p.Kind {
			lists = append(lists, listKind{p.Keyword, string(p.Name), stagePoint})
		}
	}
	return lists
}

// threadCtx is ctx.thread in a point's or hook's callback.
func threadCtx(c *callCtx) starlark.Value {
	if pc := callOf(c); pc != nil {
		return starlark.String(pc.thread)
	}
	return nil
}

// contributionsCtx is ctx.contributions in a callback of a point whose
// entries register more entries at run time (DC11).
func contributionsCtx(c *callCtx) starlark.Value {
	if pc := callOf(c); pc != nil && pc.point != nil && pc.point.Registers && pc.thread != "" {
		return contributionsValue(c.inst, pc.thread)
	}
	return nil
}

func callOf(c *callCtx) *pointCall {
	if c.ctx == nil {
		return nil
	}
	pc, _ := c.ctx.Value(pointCallKey{}).(*pointCall)
	return pc
}

// pointConstructor returns the constructor of point p:
// NAME(run, order = 0, replace = None, scope = None). replace exists only
// on tier B points; on a point that only replaces and has one target it
// defaults to that target.
func pointConstructor(p *contrib.Point) *starlark.Builtin {
	return starlark.NewBuiltin(string(p.Name), func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var (
			run            starlark.Callable
			order          int
			replace, scope starlark.Value = starlark.None, starlark.None
		)
		pairs := []any{"run", &run, "order?", &order}
		if p.Tiers&contrib.TierReplace != 0 {
			pairs = append(pairs, "replace?", &replace)
		}
		pairs = append(pairs, "scope?", &scope)
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
			return nil, err
		}
		spec := pointSpec{point: p, order: order}
		var err error
		if spec.replace, err = stringOrNone(b.Name(), "replace", replace); err != nil {
			return nil, err
		}
		s, err := stringOrNone(b.Name(), "scope", scope)
		if err != nil {
			return nil, err
		}
		spec.scope = contrib.Scope(s)
		if spec.replace == "" && p.Tiers == contrib.TierReplace && len(p.Targets) == 1 {
			spec.replace = p.Targets[0].Name
		}
		e := newEntry(th, string(p.Name), spec.replace)
		e.fn = run
		e.extra = spec
		return e, nil
	})
}

func stringOrNone(fn, param string, v starlark.Value) (string, error) {
	switch v := v.(type) {
	case starlark.NoneType:
		return "", nil
	case starlark.String:
		return string(v), nil
	}
	return "", fmt.Errorf("%s: %s must be a string, not %s", fn, param, v.Type())
}

// pointEntry turns a constructor's entry into a contrib entry of this
// generation.
func (inst *instance) pointEntry(e *entry, defaultScope contrib.Scope, thread string) contrib.PointEntry {
	spec := e.extra.(pointSpec)
	scope := spec.scope
	if scope == "" {
		scope = defaultScope
	}
	if scope != contrib.ScopeThread {
		thread = ""
	}
	return contrib.PointEntry{Point: spec.point.Name, Order: spec.order, Replace: spec.replace, Scope: scope, Thread: thread,
		Pos: e.pos, Run: inst.pointFunc(spec.point, e.pos, e.fn)}
}

func stagePoint(inst *instance, e *entry) {
	inst.staging.AddPoint(inst.pointEntry(e, contrib.ScopeWorkspace, ""))
}

// pointFunc adapts a Starlark entry: run(ctx, input) with input converted
// from JSON; None is no answer, error(code, message) an expected failure
// (DC3), any other value is converted back to JSON.
func (inst *instance) pointFunc(p *contrib.Point, pos contrib.Pos, fn starlark.Callable) contrib.PointFunc {
	what := string(p.Name)
	return func(ctx context.Context, call contrib.PointCall) (any, error) {
		ctx = context.WithValue(ctx, pointCallKey{}, &pointCall{point: p, thread: call.Thread})
		out, err := inst.call(ctx, what, fn, inst.newCtx(ctx, ctxAttach), FromJSON(call.Input))
		if err != nil {
			return nil, err
		}
		if p.Name == contrib.PointToolProvider {
			return inst.providedTools(pos, what, out) // tools, not JSON (MC2, toolprovider.go)
		}
		return inst.answer(pos, what, out)
	}
}

// answer converts a point or hook callback's return value.
func (inst *instance) answer(pos contrib.Pos, what string, v starlark.Value) (any, error) {
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case *errorValue:
		return nil, &contrib.PlacedError{ToolError: &contrib.ToolError{Code: v.code, Message: v.message}, Pos: v.pos}
	}
	out, err := copyJSON(v)
	if err != nil {
		return nil, &runFailure{diag: contrib.Diag(contrib.CallbackFailed, inst.req.Plugin, pos, "%s returned %s: %v", what, v.Type(), err)}
	}
	return out, nil
}

// newHook is hook(event, run) and raw_hook(event, run) (HK1, HK3). The
// event is checked when the entry is staged.
func newHook(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var event string
	var run starlark.Callable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "event", &event, "run", &run); err != nil {
		return nil, err
	}
	e := newEntry(th, b.Name(), event)
	e.fn = run
	return e, nil
}

func stageHook(inst *instance, e *entry) {
	raw := e.kind == "raw_hook"
	event := contrib.HookEvent(e.name)
	before := len(inst.staging.Set().Hooks)
	inst.staging.AddHook(contrib.HookEntry{Event: event, Raw: raw, Pos: e.pos, Run: inst.hookFunc(event, e.pos, e.fn)})
	if !raw || len(inst.staging.Set().Hooks) == before {
		return
	}
	// HK3: the host names the plugin once, however many raw hooks it has.
	if noted := featureState(inst, "raw_hook_noted", func() *bool { return new(bool) }); !*noted {
		*noted = true
		inst.staging.Report(contrib.RawHookRegistered, e.pos, "Plugin '%s' registered a raw hook.", inst.displayName())
	}
}

func (inst *instance) displayName() string {
	if inst.req.DisplayName != "" {
		return inst.req.DisplayName
	}
	return inst.req.Plugin
}

// hookFunc adapts run(ctx, payload): None leaves the payload, a dict names
// the fields it replaces. ctx.thread is the payload's thread.
func (inst *instance) hookFunc(event contrib.HookEvent, pos contrib.Pos, fn starlark.Callable) contrib.HookFunc {
	what := "hook " + string(event)
	return func(ctx context.Context, _ contrib.HookEvent, payload map[string]any) (any, error) {
		thread, _ := payload["thread"].(string)
		ctx = context.WithValue(ctx, pointCallKey{}, &pointCall{thread: thread})
		out, err := inst.call(ctx, what, fn, inst.newCtx(ctx, ctxAttach), FromJSON(payload))
		if err != nil {
			return nil, err
		}
		return inst.answer(pos, what, out)
	}
}

// contributionsValue is ctx.contributions of a thread callback (DC11):
// add(entry) registers a point entry — thread scope unless the entry says
// scope = SCOPE_WORKSPACE — and returns its handle; release(id) releases
// an entry this plugin added.
func contributionsValue(inst *instance, thread string) starlark.Value {
	reg, _ := inst.req.Services.(PointRegistrar)
	add := starlark.NewBuiltin("contributions.add", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var v starlark.Value
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &v); err != nil {
			return nil, err
		}
		e, ok := v.(*entry)
		if _, isPoint := e.extraPoint(); !ok || !isPoint {
			return nil, fmt.Errorf("%s: want an entry of a contribution point such as prompt_section(...), not %s", b.Name(), v.Type())
		}
		if reg == nil {
			return nil, fmt.Errorf("%s: this host accepts no entries at run time", b.Name())
		}
		e.fn.Freeze() // it may run on any goroutine from now on
		h, err := reg.AddEntry(inst.req.Plugin, inst.req.Generation, inst.pointEntry(e, contrib.ScopeThread, thread))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name(), err)
		}
		return handleValue(h), nil
	})
	release := starlark.NewBuiltin("contributions.release", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var id string
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &id); err != nil {
			return nil, err
		}
		return starlark.Bool(reg != nil && reg.ReleaseEntry(inst.req.Plugin, id)), nil
	})
	return record("contributions", starlark.StringDict{"add": add, "release": release})
}

func (e *entry) extraPoint() (pointSpec, bool) {
	if e == nil {
		return pointSpec{}, false
	}
	spec, ok := e.extra.(pointSpec)
	return spec, ok
}

// handleValue is a runtime entry's handle: id (keep it in ctx.store to
// release later), point, scope, thread and release().
func handleValue(h *contrib.Handle) starlark.Value {
	return record("handle", starlark.StringDict{
		"id": starlark.String(h.ID), "point": starlark.String(h.Point),
		"scope": starlark.String(h.Scope), "thread": starlark.String(h.Thread),
		"release": starlark.NewBuiltin("handle.release", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
				return nil, err
			}
			return starlark.Bool(h.Release()), nil
		}),
	})
}
