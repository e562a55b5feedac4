package starhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
)

// ToolCall is one tool call of the model, as Dispatch runs it
// (toolwire.ToolCallsFromOpenAI and ToolCallsFromAnthropic build them).
type ToolCall struct {
	// ID is the model's id of the call, passed through unchanged.
	ID string `json:"id"`
	// Name is the tool's model-facing name (ToolInfo.Name).
	Name string `json:"name"`
	// Arguments is the JSON the model wrote; empty or null mean {}
	// (Arguments).
	Arguments json.RawMessage `json:"arguments"`
}

// ApprovalRequest is what the approval stage decides on (Dispatch,
// PointDefaults.Approve).
type ApprovalRequest struct {
	// Thread is the thread the call belongs to.
	Thread string
	// Call is the call to approve, as the tool_call hooks left it.
	Call ToolCall
	// Risk is low, medium or high, after the approval hooks.
	Risk string
	// Prompt says the user must be asked: the classification's permission
	// is "ask" (or an approval hook requires it).
	Prompt bool
}

// Approval is the approval stage's decision.
type Approval struct {
	// Approved lets the call run.
	Approved bool `json:"approved"`
	// Reason says why, shown in the call_denied message of a refusal.
	Reason string `json:"reason"`
}

// Invoker runs one tool call for Dispatch in place of the thread's
// snapshot: the host's built-in tools, and plugin and external tools
// through ToolSnapshot.Invoke.
type Invoker func(ctx context.Context, call ToolCall) ToolResult

// DispatchResult is what Dispatch did with one call.
type DispatchResult struct {
	// Call is the call as invoked: a tool_call hook may have replaced its
	// name or arguments, never its id.
	Call ToolCall
	// Classification is the call's risk and permission before approval
	// (Classify, the tool's hints).
	Classification Classification
	// Risk is the risk after the approval hooks.
	Risk string
	// Approved says the call passed policy and approval and was invoked.
	Approved bool
	// Result is the call's result; a refused call's is call_denied.
	Result ToolResult
	// Notes are the notes of this dispatch (failing hooks and entries,
	// dropped content).
	Notes []Note
}

// dispatch is Thread.Dispatch's work for thread.
func (h *Host) dispatch(ctx context.Context, thread string, call ToolCall, invoke Invoker) DispatchResult {
	call.Arguments = contrib.Arguments(call.Arguments) // one rule: hooks, approver and invoker see {}
	res := DispatchResult{Call: call}
	if ctx.Err() != nil {
		res.Result = fromResult(contrib.Cancelled(ctx)) // nothing runs
		return res
	}
	rn := &runNotes{h: h}
	catalog := contrib.Catalog(CatalogFor(h.factsOf(ctx).Mode))
	stages := h.points.stages.get(thread, func() (*dispatchStages, bool) {
		return &dispatchStages{
			policy:     h.registry.Resolve(contrib.PointDispatchPolicy, thread),
			approval:   h.registry.Resolve(contrib.PointDispatchApproval, thread),
			recorder:   h.registry.Resolve(contrib.PointDispatchRecorder, thread),
			normalizer: h.registry.Resolve(contrib.PointDispatchNormalizer, thread),
		}, true
	})
	d := dispatch{h: h, ctx: ctx, thread: thread, rn: rn, view: h.registry.View(), custom: invoke != nil, catalog: catalog,
		snap:       h.toolsFor(ctx, thread, catalog), // MC2: the tools the mode offers for this planning, restricted
		policy:     rn.with(stages.policy),
		approval:   rn.with(stages.approval),
		recorder:   rn.with(stages.recorder),
		normalizer: rn.with(stages.normalizer),
	}
	var r contrib.Result       // the result so far, converted once at the end
	args, bad := d.check(call) // once; again only for a rewritten call
	if bad == nil {
		res.Approved, r = d.decide(&res, args)
	} else {
		r = *bad
	}
	if res.Approved && d.hasHooks(contrib.HookToolCall) {
		payload := d.hooks(contrib.HookToolCall, toolCallValue(thread, call, args))
		name, _ := payload["name"].(string)
		if name != call.Name || !contrib.SameJSON(payload["arguments"], args) {
			res.Call = ToolCall{ID: call.ID, Name: name, Arguments: encodeValue(payload["arguments"])}
			if args, bad = d.check(res.Call); bad != nil {
				res.Approved, r = false, *bad
			} else {
				res.Approved, r = d.decide(&res, args) // HK2: classified and approved again
			}
		}
	}
	if !res.Approved && ctx.Err() != nil {
		r = contrib.Cancelled(ctx) // the stage failed because the caller gave up
	}
	if res.Approved {
		r = d.invoke(res.Call, args, invoke)
	}
	if d.recorder.Idle() && d.normalizer.Idle() {
		res.Result, res.Notes = fromResult(r), rn.notes() // nobody records or normalizes: the result stands
		return res
	}
	rec := map[string]any{"thread": thread, "call": toolCallValue(thread, res.Call, args), "result": toolResultValue(r)}
	_, _ = d.recorder.Collect(ctx, rec, nil)
	if res.Approved && !d.normalizer.Idle() {
		out, err := d.normalizer.Fold(ctx, rec, normalizedAnswer)
		var pe *contrib.PointError
		if errors.As(err, &pe) {
			r = contrib.Failure(pe.Code, pe.Message)
		} else {
			r = keepCause(r, keepParts(r, toolResultOf(out.(map[string]any)["result"])))
		}
	}
	res.Result, res.Notes = fromResult(r), rn.notes()
	return res
}

// dispatch is one run of Dispatch with its stages resolved.
type dispatch struct {
	h                                      *Host
	ctx                                    context.Context
	thread                                 string
	rn                                     *runNotes
	view                                   *contrib.View
	snap                                   *contrib.ToolSnapshot // the thread's tools
	catalog                                contrib.Catalog       // the catalog snap lists
	custom                                 bool                  // the host passed its own Invoker
	policy, approval, recorder, normalizer *contrib.Resolution
}

// check answers, before any stage runs, a call that cannot run (point 4 of
// the dispatch order): a tool of the thread's snapshot gets its arguments
// decoded and validated (invalid_arguments); one of the host's built-in
// tools (Options.BuiltinTools, or any other name when the host names none
// and passes its own Invoker) needs well-formed JSON; every other name is
// unknown_tool — a built-in tool without an Invoker and a plugin tool the
// mode's catalog leaves out say so. It returns the decoded arguments, or
// the failure.
func (d *dispatch) check(call ToolCall) (any, *contrib.Result) {
	args, res, ok := d.snap.Check(call.Name, call.Arguments)
	if ok {
		return args, nil
	}
	if res.Err.Code != contrib.ErrUnknownTool {
		return nil, &res
	}
	builtin := slices.Contains(d.h.opts.BuiltinTools, call.Name)
	if !d.custom && builtin {
		res = contrib.Failure(contrib.ErrUnknownTool, fmt.Sprintf("%q is one of the host's built-in tools (Options.BuiltinTools), which Dispatch runs only through the host's Invoker; none was given", call.Name))
		return nil, &res
	}
	if info, known := d.view.ToolInfo(call.Name); known && !builtin {
		// A plugin or external tool the snapshot leaves out was not offered:
		// no Invoker runs it either.
		if offered := d.catalog.String(); !strings.Contains(info.Catalogs, offered) { // plan_and_work holds both
			res = contrib.Failure(contrib.ErrUnknownTool, fmt.Sprintf("tool %q is not offered in this mode: its catalogs are %q and the session's mode offers the %s catalog", call.Name, info.Catalogs, offered))
		}
		return nil, &res
	}
	if !d.custom || len(d.h.opts.BuiltinTools) > 0 && !builtin {
		return nil, &res
	}
	args, err := decodeValue(contrib.Arguments(call.Arguments))
	if err != nil {
		res = contrib.Failure(contrib.ErrInvalidArguments, "arguments are not valid JSON: "+err.Error())
		return nil, &res
	}
	return args, nil
}

// onlyHostEntries reports whether every entry of res is the host's own.
func onlyHostEntries(res *contrib.Resolution) bool {
	for _, e := range res.Entries {
		if e.Origin != "" {
			return false
		}
	}
	return true
}

// hasHooks reports whether event has hooks, so a payload is built only
// for someone.
func (d *dispatch) hasHooks(event contrib.HookEvent) bool { return len(d.view.HookRuns(event)) > 0 }

func (d *dispatch) hooks(event contrib.HookEvent, payload map[string]any) map[string]any {
	return contrib.RunHooks(d.ctx, d.view.HookRuns(event), event, payload, d.rn.add)
}

// decide classifies res.Call and runs the policy, the approval hooks and
// the approval stage. A refusal comes with its call_denied result.
func (d *dispatch) decide(res *DispatchResult, args any) (bool, contrib.Result) {
	call := res.Call
	cl, err := d.h.classify(d.ctx, call.Name, call.Arguments)
	if err != nil || !cl.Known {
		cl.Classification = Classification{Risk: "medium", Permission: "ask"}
	}
	if err == nil {
		if refusal, refused := d.toolHints(call.Name, &cl); refused {
			res.Classification, res.Risk = cl.Classification, cl.Risk
			return false, refusal // MC4: plan mode runs read-only tools only (toolpolicy.go)
		}
	}
	res.Classification, res.Risk = cl.Classification, cl.Risk
	if cl.Permission == "deny" {
		return false, denied("the host's classification denies %s", call.Name)
	}
	var in map[string]any // the call as points and hooks see it, built only for them
	if !d.policy.Idle() {
		in = toolCallValue(d.thread, call, args)
		in["risk"] = cl.Risk
		reasons, err := d.policy.Collect(d.ctx, in, textAnswer)
		if err != nil {
			return false, denied("the policy failed: %v", err)
		}
		if len(reasons) > 0 {
			return false, denied("%s", reasons[0].Value)
		}
	}
	var a Approval
	if d.hasHooks(contrib.HookApproval) || !onlyHostEntries(d.approval) {
		if in == nil {
			in = toolCallValue(d.thread, call, args)
			in["risk"] = cl.Risk
		}
		in["prompt"] = cl.Permission == "ask"
		if d.hasHooks(contrib.HookApproval) {
			in = d.hooks(contrib.HookApproval, in)
		}
		res.Risk, _ = in["risk"].(string)
		out, ok, err := d.approval.First(d.ctx, in, approvalAnswer)
		switch {
		case err != nil:
			return false, denied("approval failed: %v", err)
		case !ok:
			return false, denied("nobody approved %s", call.Name)
		}
		a = out.Value.(Approval)
	} else {
		// Only the host answers: ask it directly, without the JSON round trip.
		a = d.h.hostApproval(d.ctx, ApprovalRequest{Thread: d.thread, Call: call, Risk: cl.Risk, Prompt: cl.Permission == "ask"})
	}
	if !a.Approved {
		why := a.Reason
		if why == "" {
			why = "not approved"
		}
		return false, denied("%s", why)
	}
	return true, contrib.Result{}
}

func denied(format string, args ...any) contrib.Result {
	return contrib.Failure(string(ErrCallDenied), fmt.Sprintf(format, args...))
}

// invoke runs the call, whose arguments check accepted as args, and its
// tool_result hooks.
func (d *dispatch) invoke(call ToolCall, args any, invoke Invoker) contrib.Result {
	var res contrib.Result
	if invoke != nil {
		res = toResult(invoke(d.ctx, call))
	} else {
		res = d.snap.InvokeChecked(d.ctx, call.Name, args)
	}
	if !res.OK() {
		return res
	}
	if adapted, note := d.h.forModel(d.ctx, res, call.Name); note != nil { // MC1: only what the model takes
		res = adapted
		d.rn.add(diagOf(*note))
	}
	if !d.hasHooks(contrib.HookToolResult) {
		return res
	}
	text := res.Text
	if res.Data != nil {
		text = string(res.Data)
	}
	payload := d.hooks(contrib.HookToolResult, map[string]any{"thread": d.thread, "id": call.ID, "name": call.Name, "text": text})
	if next, _ := payload["text"].(string); next != text {
		return res.WithText(next) // content parts other than text stay (MC1)
	}
	return res
}

// approvalAnswer accepts {"approved": bool, "reason": str} (or a bare
// bool) as an Approval.
func approvalAnswer(_, out any) (any, error) {
	switch v := out.(type) {
	case bool:
		return Approval{Approved: v}, nil
	case map[string]any:
		approved, ok := v["approved"].(bool)
		if !ok {
			break
		}
		reason, _ := v["reason"].(string)
		return Approval{Approved: approved, Reason: reason}, nil
	}
	return nil, fmt.Errorf("returned a %s; want {\"approved\": bool, \"reason\": str} or None", contrib.JSONKind(out))
}

// normalizedAnswer accepts a result {text, data, error} as the next record.
func normalizedAnswer(in, out any) (any, error) {
	m, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("returned a %s; want a result {text, data, error} or None", contrib.JSONKind(out))
	}
	if _, ok := m["text"].(string); !ok && m["data"] == nil && m["error"] == nil {
		return nil, fmt.Errorf("returned a result with neither text, data nor error")
	}
	prev := in.(map[string]any)
	if code := errorCode(m); contrib.ReservedCode(code) && code != errorCode(prev["result"]) {
		// A normalizer may keep the host's code of the call, never claim one.
		return nil, fmt.Errorf("returned an error with the code %q, which is reserved for the host", code)
	}
	next := map[string]any{}
	for k, v := range prev {
		next[k] = v
	}
	next["result"] = m
	return next, nil
}

// keepCause keeps the host's cause of a failed call through a normalizer
// that kept its code: only the host sets a cause.
func keepCause(invoked, normalized contrib.Result) contrib.Result {
	if invoked.Err != nil && normalized.Err != nil && normalized.Err.Code == invoked.Err.Code && normalized.Err.Cause == "" {
		e := *normalized.Err
		e.Cause = invoked.Err.Cause
		normalized.Err = &e
	}
	return normalized
}

// errorCode is the code of a result value's error ("" for none).
func errorCode(result any) string {
	m, _ := result.(map[string]any)
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}
