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

// Invoker runs the host's own tools for Dispatch: it is asked for every
// call that passed policy and approval, as the tool_call hooks left it, and
// answers ran true with the result of a call it ran (the host's built-in
// tools, Options.BuiltinTools) — or a result standing for one the agent
// host runs itself — or ran false to leave the call to the thread's
// snapshot: Dispatch then runs the plugin or external tool from the
// snapshot it checked the call against, on the arguments it already
// decoded and validated, with no second tool planning and no conversion of
// the result. A nil Invoker leaves every call to the snapshot.
type Invoker func(ctx context.Context, call ToolCall) (res ToolResult, ran bool)

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

// dispatch is Thread.Dispatch's work for thread: the whole route of one
// tool call, top to bottom, with the step numbers of the package comment
// (doc.go). The call's values cross into the registry's types once, here:
// the arguments are decoded once (step 3) and every later stage — the
// classifiers, the policy, the hooks, the invocation — takes that value;
// the result stays a contrib.Result until step 10 converts it, once, into
// the embedder's ToolResult. Only what plugins see (the JSON-like values of
// points and hooks) is built, and only when someone will see it.
func (h *Host) dispatch(ctx context.Context, thread string, call ToolCall, invoke Invoker) DispatchResult {
	call.Arguments = contrib.Arguments(call.Arguments) // 1. one rule: hooks, approver and invoker see {}
	if ctx.Err() != nil {
		return DispatchResult{Call: call, Result: fromResult(contrib.Cancelled(ctx))} // nothing runs
	}
	d := h.startDispatch(ctx, thread, call, invoke) // 2. the thread's tools and stages
	if d.validate() && d.decide() && d.rewrite() {  // 3.–6. validation; classification, policy, approval; tool_call hooks
		d.invoke() // 7.–8. the tool; ForModel and the tool_result hooks
	} else if ctx.Err() != nil {
		d.r = contrib.Cancelled(ctx) // a stage failed because the caller gave up
	}
	d.record()        // 9. recorder, then normalizer
	return d.finish() // 10. the result converted once
}

// dispatch is one run of Dispatch: its resolved stages, and the call's
// values as they go down the route.
type dispatch struct {
	h                                      *Host
	ctx                                    context.Context
	thread                                 string
	rn                                     *runNotes
	view                                   *contrib.View
	snap                                   *contrib.ToolSnapshot // the thread's tools
	catalog                                contrib.Catalog       // the catalog snap lists
	invoker                                Invoker               // the host's own tools; nil: the snapshot's only
	policy, approval, recorder, normalizer *contrib.Resolution

	res  DispatchResult // what the embedder gets back, filled on the way
	args any            // res.Call's arguments, decoded once by validate
	r    contrib.Result // the outcome so far, converted once by finish
}

// startDispatch is step 2: the thread's tools for the session's mode
// (toolsFor: static, provided, restricted — the list Tools offers) and the
// thread's four stages, resolved once: the call finishes with the entries
// it started with (DC12).
func (h *Host) startDispatch(ctx context.Context, thread string, call ToolCall, invoke Invoker) dispatch {
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
	return dispatch{h: h, ctx: ctx, thread: thread, rn: rn, view: h.registry.View(), invoker: invoke, catalog: catalog,
		snap:       h.toolsFor(ctx, thread, catalog), // MC2: the tools the mode offers for this planning, restricted
		policy:     rn.with(stages.policy),
		approval:   rn.with(stages.approval),
		recorder:   rn.with(stages.recorder),
		normalizer: rn.with(stages.normalizer),
		res:        DispatchResult{Call: call},
	}
}

// validate is step 3: it answers, before any stage runs, a call that
// cannot run (point 4 of the dispatch order): a tool of the thread's
// snapshot gets its arguments decoded and validated (invalid_arguments);
// one of the host's built-in tools (Options.BuiltinTools, or any other name
// when the host names none and passes its own Invoker) needs well-formed
// JSON; every other name is unknown_tool — a built-in tool without an
// Invoker and a plugin tool the mode's catalog leaves out say so. It
// decodes res.Call's arguments into d.args, or sets the failure.
func (d *dispatch) validate() bool {
	call := d.res.Call
	args, res, ok := d.snap.Check(call.Name, call.Arguments)
	if ok {
		d.args = args
		return true
	}
	d.r = res
	if res.Err.Code != contrib.ErrUnknownTool {
		return false
	}
	builtin := slices.Contains(d.h.opts.BuiltinTools, call.Name)
	if d.invoker == nil && builtin {
		d.r = contrib.Failure(contrib.ErrUnknownTool, fmt.Sprintf("%q is one of the host's built-in tools (Options.BuiltinTools), which Dispatch runs only through the host's Invoker; none was given", call.Name))
		return false
	}
	if info, known := d.view.ToolInfo(call.Name); known && !builtin {
		// A plugin or external tool the snapshot leaves out was not offered:
		// no Invoker runs it either.
		if offered := d.catalog.String(); !strings.Contains(info.Catalogs, offered) { // plan_and_work holds both
			d.r = contrib.Failure(contrib.ErrUnknownTool, fmt.Sprintf("tool %q is not offered in this mode: its catalogs are %q and the session's mode offers the %s catalog", call.Name, info.Catalogs, offered))
		}
		return false
	}
	if d.invoker == nil || len(d.h.opts.BuiltinTools) > 0 && !builtin {
		return false
	}
	args, err := decodeValue(contrib.Arguments(call.Arguments)) // a rewritten call's too
	if err != nil {
		d.r = contrib.Failure(contrib.ErrInvalidArguments, "arguments are not valid JSON: "+err.Error())
		return false
	}
	d.args, d.r = args, contrib.Result{}
	return true
}

// decide is steps 4 and 5: it classifies res.Call (Classify, then the
// tool's hints), runs the policy, the approval hooks and the approval
// stage. A refusal sets its call_denied result.
func (d *dispatch) decide() bool {
	call := d.res.Call
	cl := d.h.classifyValue(d.ctx, call.Name, func() any { return d.args }) // the arguments validate decoded
	if !cl.Known {
		cl.Classification = Classification{Risk: "medium", Permission: "ask"}
	}
	refusal, refused := d.toolHints(call.Name, &cl)
	d.res.Classification, d.res.Risk, d.res.Approved = cl.Classification, cl.Risk, false
	switch {
	case refused:
		d.r = refusal // MC4: plan mode runs read-only tools only
		return false
	case cl.Permission == "deny":
		d.r = denied("the host's classification denies %s", call.Name)
		return false
	}
	var in map[string]any // the call as points and hooks see it, built only for them
	if !d.policy.Idle() {
		var input any = hostInput{call: call, risk: cl.Risk} // only the host's policy: the call as it is
		if !onlyHostEntries(d.policy) {
			in = toolCallValue(d.thread, call, d.args)
			in["risk"] = cl.Risk
			input = in
		}
		reasons, err := d.policy.Collect(d.ctx, input, textAnswer)
		if err != nil {
			d.r = denied("the policy failed: %v", err)
			return false
		}
		if len(reasons) > 0 {
			d.r = denied("%s", reasons[0].Value)
			return false
		}
	}
	var a Approval
	if d.hasHooks(contrib.HookApproval) || !onlyHostEntries(d.approval) {
		if in == nil {
			in = toolCallValue(d.thread, call, d.args)
			in["risk"] = cl.Risk
		}
		in["prompt"] = cl.Permission == "ask"
		if d.hasHooks(contrib.HookApproval) {
			in = d.hooks(contrib.HookApproval, in)
		}
		d.res.Risk, _ = in["risk"].(string)
		out, ok, err := d.approval.First(d.ctx, in, approvalAnswer)
		switch {
		case err != nil:
			d.r = denied("approval failed: %v", err)
			return false
		case !ok:
			d.r = denied("nobody approved %s", call.Name)
			return false
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
		d.r = denied("%s", why)
		return false
	}
	d.res.Approved, d.r = true, contrib.Result{}
	return true
}

// The tool hints of step 4 (MC4): the pipeline consults a tool's read_only
// and requires_approval. The rule, for plugin and external tools (the
// host's own tools have no hints):
//
//   - In plan mode (Facts.Mode "plan") a tool that is not read_only is
//     refused with call_denied: planning must not change anything.
//   - A call the host does not classify (no built-in classification, no
//     plugin classifier answered) takes its classification from the hints:
//     risk "low" when read_only, else "medium"; permission "ask" when
//     approval is required (declared requires_approval, else !read_only),
//     else "allow". The default approver then asks only when required.
//   - A classified call keeps its classification, except that a tool that
//     requires approval turns "allow" into "ask". Hints never lower the
//     host's verdict: they cannot turn "ask" or "deny" into "allow".

// PlanMode is the Facts.Mode in which only read-only tools run.
const PlanMode = "plan"

// toolHints applies the rule above to cl; it returns a refusal when plan
// mode refuses the tool.
func (d *dispatch) toolHints(name string, cl *Classified) (contrib.Result, bool) {
	info, ok := d.view.ToolInfo(name)
	if !ok {
		return contrib.Result{}, false
	}
	if d.h.factsOf(d.ctx).Mode == PlanMode && !info.ReadOnly {
		return denied("plan mode runs only read-only tools; %s is not read_only", info.CanonicalName), true
	}
	switch {
	case !cl.Known:
		cl.Risk, cl.Permission, cl.Source = "medium", "allow", "hints"
		if info.ReadOnly {
			cl.Risk = "low"
		}
		if info.RequiresApproval {
			cl.Permission = "ask"
		}
	case info.RequiresApproval && cl.Permission == "allow":
		cl.Permission = "ask"
	}
	return contrib.Result{}, false
}

// rewrite is step 6: the tool_call hooks may replace the approved call's
// name or arguments (never its id); a rewritten call is validated,
// classified and approved again (HK2).
func (d *dispatch) rewrite() bool {
	if !d.hasHooks(contrib.HookToolCall) {
		return true
	}
	call := d.res.Call
	payload := d.hooks(contrib.HookToolCall, toolCallValue(d.thread, call, d.args))
	name, _ := payload["name"].(string)
	if name == call.Name && contrib.SameJSON(payload["arguments"], d.args) {
		return true
	}
	d.res.Call = ToolCall{ID: call.ID, Name: name, Arguments: encodeValue(payload["arguments"])}
	d.res.Approved = false
	return d.validate() && d.decide()
}

// invoke is steps 7 and 8: the approved call runs — the host's Invoker
// first when there is one, else (or when it leaves the call) the thread's
// snapshot on the arguments validate decoded; then a successful result is
// adapted to the session's model (ForModel, MC1) and the tool_result hooks
// may replace its text.
func (d *dispatch) invoke() {
	call := d.res.Call
	ran := false
	if d.invoker != nil {
		var out ToolResult
		if out, ran = d.invoker(d.ctx, call); ran {
			d.r = toResult(out) // the host's own result enters once
		}
	}
	if !ran {
		d.r = d.snap.InvokeChecked(d.ctx, call.Name, d.args)
	}
	if !d.r.OK() {
		return
	}
	if adapted, note, dropped := d.h.forModel(d.ctx, d.r, call.Name); dropped { // MC1: only what the model takes
		d.r = adapted
		d.rn.add(note)
	}
	if !d.hasHooks(contrib.HookToolResult) {
		return
	}
	text := d.r.Text
	if d.r.Data != nil {
		text = string(d.r.Data)
	}
	payload := d.hooks(contrib.HookToolResult, map[string]any{"thread": d.thread, "id": call.ID, "name": call.Name, "text": text})
	if next, _ := payload["text"].(string); next != text {
		d.r = d.r.WithText(next) // content parts other than text stay (MC1)
	}
}

// record is step 9: the recorder stage (observers) sees every call,
// refused ones too; the normalizer stage (a fold, authoritative: a failing
// entry fails the call with point_failed or its own error(code, …), DC3)
// rewrites an invoked call's result. The record is built only when one of
// them has something to run.
func (d *dispatch) record() {
	if d.recorder.Idle() && d.normalizer.Idle() {
		return // nobody records or normalizes: the result stands
	}
	normalize := d.res.Approved && !d.normalizer.Idle()
	var rec any = hostInput{call: d.res.Call, result: d.r} // only the host's entries: the values as they are
	if !onlyHostEntries(d.recorder) || normalize && !onlyHostEntries(d.normalizer) {
		rec = map[string]any{"thread": d.thread, "call": toolCallValue(d.thread, d.res.Call, d.args), "result": toolResultValue(d.r)}
	}
	_, _ = d.recorder.Collect(d.ctx, rec, nil)
	if !normalize {
		return
	}
	out, err := d.normalizer.Fold(d.ctx, rec, normalizedAnswer)
	var pe *contrib.PointError
	switch v := out.(type) {
	case nil:
	case hostInput:
		out = v.result
	default:
		out = toolResultOf(v.(map[string]any)["result"])
	}
	if errors.As(err, &pe) {
		d.r = contrib.Failure(pe.Code, pe.Message)
	} else {
		d.r = keepCause(d.r, keepParts(d.r, out.(contrib.Result)))
	}
}

// finish is step 10: the result converted, once, to the embedder's
// ToolResult, with the notes of the run.
func (d *dispatch) finish() DispatchResult {
	d.res.Result, d.res.Notes = fromResult(d.r), d.rn.notes()
	return d.res
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

func denied(format string, args ...any) contrib.Result {
	return contrib.Failure(string(ErrCallDenied), fmt.Sprintf(format, args...))
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

// normalizedAnswer accepts a result {text, data, error} as the next record
// (or the host's own entry's answer, a hostInput).
func normalizedAnswer(in, out any) (any, error) {
	if h, ok := out.(hostInput); ok {
		if code := resultCode(h.result); contrib.ReservedCode(code) && code != resultCode(in.(hostInput).result) {
			return nil, fmt.Errorf("returned an error with the code %q, which is reserved for the host", code)
		}
		return h, nil
	}
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

// resultCode is the code of r's error ("" for none).
func resultCode(r contrib.Result) string {
	if r.Err == nil {
		return ""
	}
	return r.Err.Code
}

// errorCode is the code of a result value's error ("" for none).
func errorCode(result any) string {
	m, _ := result.(map[string]any)
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}
