package starhost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/crystal-star/crystal-star/contrib"
)

// The contribution points of DC2 as an agent host calls them. Each point is
// one row of contrib.Points; this file holds the host's defaults, the
// captured per-thread state and the generic calls (Resolve, Points,
// Subscribe). prompt.go, dispatch.go and turns.go call the points at
// their moment in a turn.

// The named defaults of the contribution points (docs/points.md): the
// keys of PointDefaults.Sections and Middleware, and what the other
// fields of PointDefaults provide. A plugin's replace = TARGET names one.
const (
	TargetIdentity          = "identity"
	TargetToolUse           = "tool_use"
	TargetResponseStyle     = "response_style"
	TargetEnvironment       = "environment"
	TargetMemory            = "memory"
	TargetHistoryTrim       = "history_trim"
	TargetPromptCache       = "prompt_cache"
	TargetPolicy            = "policy"
	TargetApproval          = "approval"
	TargetRecorder          = "recorder"
	TargetNormalizer        = "normalizer"
	TargetCompactionSummary = "compaction_summary"
	TargetCompactable       = "compactable"
	TargetCommitMessage     = "commit_message"
	TargetWelcome           = "welcome"
)

// PointDefaults are the host's own entries for the named defaults of the
// contribution points (DC1): what a plugin's replace = TARGET shadows. Every
// field is optional; a nil one makes its default produce nothing (a
// replacement still stands in its place).
type PointDefaults struct {
	// Sections holds the text of the prompt_section targets, keyed by
	// TargetIdentity, TargetToolUse, TargetResponseStyle or
	// TargetEnvironment. Each is bound with Bind (SitePrompt) when the
	// prompt is assembled.
	Sections map[string]string
	// Memory is the memory provider (context_transform, TargetMemory).
	Memory func(ctx context.Context, thread string) string
	// Middleware holds the chat middlewares by target (TargetHistoryTrim,
	// TargetPromptCache).
	Middleware map[string]func(ctx context.Context, thread string, call OutboundCall) OutboundCall
	// Policy is the host's tool policy (TargetPolicy): a reason to deny,
	// or "".
	Policy func(ctx context.Context, thread string, call ToolCall, risk string) string
	// Approve is the host's approval prompt (TargetApproval). Nil approves
	// a call that needs no prompt and denies one that does.
	Approve func(ctx context.Context, req ApprovalRequest) Approval
	// Record is the transcript recorder (TargetRecorder).
	Record func(ctx context.Context, thread string, call ToolCall, res ToolResult)
	// Normalize is the result normalisation (TargetNormalizer).
	Normalize func(ctx context.Context, thread string, call ToolCall, res ToolResult) (ToolResult, error)
	// Summarize is the compaction summarizer (TargetCompactionSummary).
	Summarize func(ctx context.Context, thread, prompt, body string) (string, error)
	// Compactable says whether a tool's results may be compacted
	// (TargetCompactable).
	Compactable func(tool string) bool
	// CommitMessage suggests a commit message for a diff (TargetCommitMessage).
	CommitMessage func(ctx context.Context, diff string) string
	// Welcome suggests what to do first (TargetWelcome).
	Welcome func(ctx context.Context) []string
	// Other are further defaults as JSON-valued functions.
	Other []PointDefault
}

// PointDefault is one more default of a point (PointDefaults.Other): the
// named default Target of Point (docs/points.md lists each point's
// targets), and Run, which answers with a JSON-like value for thread, or
// nil for nothing (None).
type PointDefault struct {
	Point  PointName
	Target string
	Run    func(ctx context.Context, thread string, input any) (any, error)
}

// pointDefaults converts Options.Points into the registry's defaults.
func (h *Host) pointDefaults() []contrib.Default {
	d := h.opts.Points
	var out []contrib.Default
	add := func(p contrib.PointName, target string, ok bool, run contrib.PointFunc) {
		if ok {
			out = append(out, contrib.Default{Point: p, Target: target, Run: run})
		}
	}
	for target, text := range d.Sections {
		add(contrib.PointPromptSection, target, true, func(ctx context.Context, _ contrib.PointCall) (any, error) {
			return h.bind(ctx, text, SitePrompt), nil
		})
	}
	add(contrib.PointContextTransform, contrib.TargetMemory, d.Memory != nil, func(ctx context.Context, c contrib.PointCall) (any, error) {
		return nilIfEmpty(d.Memory(ctx, c.Thread)), nil
	})
	for target, mw := range d.Middleware {
		add(contrib.PointChatMiddleware, target, true, func(ctx context.Context, c contrib.PointCall) (any, error) {
			call, err := outboundOf(c.Input)
			if err != nil {
				return nil, err
			}
			return outboundValue(c.Thread, mw(ctx, c.Thread, call)), nil
		})
	}
	add(contrib.PointDispatchPolicy, contrib.TargetPolicy, d.Policy != nil, func(ctx context.Context, c contrib.PointCall) (any, error) {
		call, risk := policyInputOf(c.Input)
		return nilIfEmpty(d.Policy(ctx, c.Thread, call, risk)), nil
	})
	add(contrib.PointDispatchApproval, contrib.TargetApproval, true, func(ctx context.Context, c contrib.PointCall) (any, error) {
		in := c.Input.(map[string]any)
		req := ApprovalRequest{Thread: c.Thread, Call: toolCallOf(in)}
		req.Risk, _ = in["risk"].(string)
		req.Prompt, _ = in["prompt"].(bool)
		a := h.hostApproval(ctx, req)
		return map[string]any{"approved": a.Approved, "reason": a.Reason}, nil
	})
	add(contrib.PointDispatchRecorder, contrib.TargetRecorder, d.Record != nil, func(ctx context.Context, c contrib.PointCall) (any, error) {
		call, res := recordInputOf(c.Input)
		d.Record(ctx, c.Thread, call, res)
		return nil, nil
	})
	add(contrib.PointDispatchNormalizer, contrib.TargetNormalizer, d.Normalize != nil, func(ctx context.Context, c contrib.PointCall) (any, error) {
		call, in := recordInputOf(c.Input)
		res, err := d.Normalize(ctx, c.Thread, call, in)
		if err != nil {
			return nil, err
		}
		if h, ok := c.Input.(hostInput); ok {
			h.result = plainResult(toResult(res))
			return h, nil
		}
		return toolResultValue(toResult(res)), nil
	})
	add(contrib.PointCompactionSummary, contrib.TargetCompactionSummary, d.Summarize != nil, func(ctx context.Context, c contrib.PointCall) (any, error) {
		in := c.Input.(map[string]any)
		prompt, _ := in["prompt"].(string)
		body, _ := in["body"].(string)
		s, err := d.Summarize(ctx, c.Thread, prompt, body)
		return nilIfEmpty(s), err
	})
	add(contrib.PointCompactablePolicy, contrib.TargetCompactable, d.Compactable != nil, func(_ context.Context, c contrib.PointCall) (any, error) {
		tool, _ := c.Input.(map[string]any)["tool"].(string)
		return d.Compactable(tool), nil
	})
	add(contrib.PointCommitMessage, contrib.TargetCommitMessage, d.CommitMessage != nil, func(ctx context.Context, c contrib.PointCall) (any, error) {
		diff, _ := c.Input.(map[string]any)["diff"].(string)
		return nilIfEmpty(d.CommitMessage(ctx, diff)), nil
	})
	add(contrib.PointWelcome, contrib.TargetWelcome, d.Welcome != nil, func(ctx context.Context, _ contrib.PointCall) (any, error) {
		return stringsValue(d.Welcome(ctx)), nil
	})
	for _, o := range d.Other {
		add(contrib.PointName(o.Point), o.Target, o.Run != nil, func(ctx context.Context, c contrib.PointCall) (any, error) {
			return o.Run(ctx, c.Thread, c.Input)
		})
	}
	return out
}

// hostApproval is the host's approval (TargetApproval): Options.Points.Approve,
// or, without one, approved unless the call needs a prompt.
func (h *Host) hostApproval(ctx context.Context, req ApprovalRequest) Approval {
	if h.opts.Points.Approve != nil {
		return h.opts.Points.Approve(ctx, req)
	}
	a := Approval{Approved: !req.Prompt}
	if req.Prompt {
		a.Reason = "the call needs approval and the host has no approver"
	}
	return a
}

// PointInfo is one point of the table (DC2, docs/points.md) with its
// current entries for one thread.
type PointInfo struct {
	Name    PointName
	Keyword string // the contribute() keyword taking a list of entries
	Title   string
	// Tiers, Eval, Combine and Failure are the point's rules as
	// docs/points.md names them ("append+replace", "captured", "collect",
	// "fan_out", …).
	Tiers, Eval, Combine, Failure string
	// Signature is the Starlark callback, with what it receives and
	// returns.
	Signature string
	// Kind marks the points served by their own contribution kind (tools,
	// commands): see Tools and Commands; they have no entries here.
	Kind    bool
	Entries []PointEntry
}

// PointEntry is one entry of a point's resolved list: a plugin's, or the
// host's default (Origin "").
type PointEntry struct {
	Origin     string // the plugin id; "" for the host's default
	Generation string
	// Target is the named default this entry stands for ("" for an
	// appended entry or a takeover); Replaced says a plugin entry replaces
	// it.
	Target   string
	Replaced bool
	Order    int
	Scope    string // "workspace", or "thread" for an entry added at run time
	Thread   string
	Handle   string // the runtime handle id; "" for static entries and defaults
	Pos      Position
	// Empty marks a host default with nothing to run (no text set).
	Empty bool
}

// pointsFor is Thread.Points's work for thread.
func (h *Host) pointsFor(thread string) []PointInfo {
	out := make([]PointInfo, len(contrib.Points))
	for i := range contrib.Points {
		out[i] = pointInfoOf(&contrib.Points[i], h.registry.Resolve(contrib.Points[i].Name, thread).Entries)
	}
	return out
}

// pointsState is the host's captured per-thread state (DC12).
type pointsState struct {
	prompts threadCache[*Prompt]
	pipes   threadCache[*contrib.Resolution]
	tools   threadCache[*contrib.ToolSnapshot]
	stages  threadCache[*dispatchStages]
}

// dispatchStages are a thread's four dispatch stages as last resolved: a
// Dispatch takes them once (the call finishes with the entries it started
// with, DC12) and a change of one of their points drops them.
type dispatchStages struct{ policy, approval, recorder, normalizer *contrib.Resolution }

// invalidate drops what an invalidation makes stale.
func (s *pointsState) invalidate(inv contrib.Invalidation) {
	s.prompts.invalidate(inv, contrib.PointPromptSection, contrib.PointPromptAssembler, contrib.PointThreadContext,
		contrib.PointContextTransform) // a memory replacement takes over the prompt (MC3)
	s.pipes.invalidate(inv, contrib.PointChatMiddleware)
	s.tools.invalidate(inv, contrib.PointToolRestriction)
	s.stages.invalidate(inv, contrib.PointDispatchPolicy, contrib.PointDispatchApproval,
		contrib.PointDispatchRecorder, contrib.PointDispatchNormalizer)
}

// threadCache holds one kind of captured state by key (a thread, or a
// thread and "\x00" and more). A value built while an invalidation
// happened is not kept.
type threadCache[T any] struct {
	mu    sync.Mutex
	epoch uint64
	m     map[string]T
}

func (c *threadCache[T]) get(key string, build func() (T, bool)) T {
	c.mu.Lock()
	if v, ok := c.m[key]; ok {
		c.mu.Unlock()
		return v
	}
	epoch := c.epoch
	c.mu.Unlock()
	v, keep := build()
	c.mu.Lock()
	if keep && c.epoch == epoch {
		if c.m == nil {
			c.m = map[string]T{}
		}
		c.m[key] = v
	}
	c.mu.Unlock()
	return v
}

func (c *threadCache[T]) invalidate(inv contrib.Invalidation, points ...contrib.PointName) {
	if inv.Points != nil && !slices.ContainsFunc(points, func(p contrib.PointName) bool { return slices.Contains(inv.Points, p) }) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	for k := range c.m {
		if thread, _, _ := strings.Cut(k, "\x00"); inv.Thread == "" || thread == inv.Thread {
			delete(c.m, k)
		}
	}
}

// forgetSession drops what was captured for the threads of the session of
// tag (it ended).
func (s *pointsState) forgetSession(tag string) {
	s.prompts.drop(tag)
	s.tools.drop(tag)
}

// drop deletes the keys of the session of tag.
func (c *threadCache[T]) drop(tag string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.m {
		if strings.Contains(k+"\x00", tag+"\x00") {
			delete(c.m, k)
		}
	}
}

// forget drops everything captured for thread (it ended).
func (s *pointsState) forget(thread string) { s.invalidate(contrib.Invalidation{Thread: thread}) }

// runNotes forwards a run's notes to the host and keeps them for the
// caller (Dispatch, RunHook).
type runNotes struct {
	h    *Host
	mu   sync.Mutex
	list []Note
}

func (r *runNotes) add(d contrib.Diagnostic) {
	r.h.note(d)
	r.mu.Lock()
	r.list = append(r.list, noteOf(r.h.redactNote(d)))
	r.mu.Unlock()
}

func (r *runNotes) notes() []Note {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.list)
}

// resolve is Resolve with the run's notes.
func (r *runNotes) resolve(point contrib.PointName, thread string) *contrib.Resolution {
	res := r.h.registry.Resolve(point, thread)
	res.Notes = r.add
	return res
}

// with is a captured resolution with the run's notes (the captured one is
// shared by every run and stays unchanged). One with nothing to run notes
// nothing and is shared as it is.
func (r *runNotes) with(res *contrib.Resolution) *contrib.Resolution {
	if res.Idle() {
		return res
	}
	c := *res
	c.Notes = r.add
	return &c
}

// The JSON-like values points and hooks receive and return.

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func stringsValue(list []string) any {
	if len(list) == 0 {
		return nil
	}
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// decodeValue decodes JSON with numbers as json.Number; empty is nil.
func decodeValue(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func encodeValue(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return data
}

// hostInput is a dispatch stage's input when only the host's own entry
// runs (Options.Points.Policy, Record, Normalize): the call and its result
// as they are, so they make no round trip through the JSON-like values
// plugins see. Where a plugin entry runs too, the stage gets that value (a
// map) and the host's entry reads it back.
type hostInput struct {
	call   ToolCall
	risk   string         // the policy's
	result contrib.Result // the recorder's and the normalizer's
}

// policyInputOf is the call and risk the host's policy decides on.
func policyInputOf(in any) (ToolCall, string) {
	if h, ok := in.(hostInput); ok {
		return h.call, h.risk
	}
	m := in.(map[string]any)
	risk, _ := m["risk"].(string)
	return toolCallOf(m), risk
}

// recordInputOf is the call and result the host's recorder records and
// its normalizer rewrites: the result's text, data and error, as those
// stages show them to plugins (content parts are metadata there, and
// absent here).
func recordInputOf(in any) (ToolCall, ToolResult) {
	if h, ok := in.(hostInput); ok {
		return h.call, fromResult(plainResult(h.result))
	}
	m := in.(map[string]any)
	return toolCallOf(m["call"].(map[string]any)), fromResult(toolResultOf(m["result"]))
}

// plainResult is r's text, data and error (its code and message): what
// the recorder and normalizer stages see and the normalizer returns.
func plainResult(r contrib.Result) contrib.Result {
	out := contrib.Result{Text: r.Text, Data: r.Data}
	if e := r.Err; e != nil {
		out.Err = &contrib.ToolError{Code: e.Code, Message: e.Message}
	}
	return out
}

// toolCallValue is a call as points and hooks see it; args are its decoded
// arguments.
func toolCallValue(thread string, c ToolCall, args any) map[string]any {
	return map[string]any{"thread": thread, "id": c.ID, "name": c.Name, "arguments": args}
}

func toolCallOf(m map[string]any) ToolCall {
	c := ToolCall{}
	c.ID, _ = m["id"].(string)
	c.Name, _ = m["name"].(string)
	c.Arguments = encodeValue(m["arguments"])
	return c
}

func toolResultValue(r contrib.Result) map[string]any {
	m := map[string]any{"text": r.Text, "data": nil, "error": nil}
	if r.Data != nil {
		m["data"], _ = decodeValue(r.Data)
	}
	if r.Err != nil {
		m["error"] = map[string]any{"code": r.Err.Code, "message": r.Err.Message}
	}
	if len(r.Parts) > 0 {
		m["parts"] = partsValue(r.Parts) // MC1: metadata only (content.go)
	}
	return m
}

func toolResultOf(v any) contrib.Result {
	m, _ := v.(map[string]any)
	var r contrib.Result
	r.Text, _ = m["text"].(string)
	if d := m["data"]; d != nil {
		r.Data = encodeValue(d)
	}
	if e, ok := m["error"].(map[string]any); ok {
		code, _ := e["code"].(string)
		msg, _ := e["message"].(string)
		r.Err = &contrib.ToolError{Code: code, Message: msg}
	}
	return r
}

func modelItemsValue(items []ModelItem) []any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = map[string]any{"id": it.ID, "role": it.Role, "text": it.Text}
	}
	return out
}

func modelItemsOf(v any) []ModelItem {
	list, _ := v.([]any)
	out := make([]ModelItem, 0, len(list))
	for _, x := range list {
		m, _ := x.(map[string]any)
		var it ModelItem
		it.ID, _ = m["id"].(string)
		it.Role, _ = m["role"].(string)
		it.Text, _ = m["text"].(string)
		out = append(out, it)
	}
	return out
}

func outboundValue(thread string, c OutboundCall) map[string]any {
	return map[string]any{"thread": thread, "purpose": c.Purpose, "items": modelItemsValue(c.Items)}
}

func outboundOf(v any) (OutboundCall, error) {
	m, _ := v.(map[string]any)
	if err := contrib.CheckModelItems(m["items"]); err != nil {
		return OutboundCall{}, fmt.Errorf("items: %w", err)
	}
	purpose, _ := m["purpose"].(string)
	return OutboundCall{Purpose: purpose, Items: modelItemsOf(m["items"])}, nil
}
