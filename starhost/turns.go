package starhost

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
)

// The moments of a session, a thread and a turn: hooks (HK1–HK3), the
// thread and turn observers (which may add thread-scoped entries, DC11) and
// the remaining points the host calls at a moment of its own.

// HookResult is the outcome of one hook stage: the payload after every hook
// of the stage, and the notes of hooks that were skipped.
type HookResult struct {
	Payload map[string]any
	Notes   []Note
}

// RunHook runs the hooks of the event name ("user_message", "approval", …,
// the hook table of docs/points.md) on payload (HK1–HK3): plugin hooks in
// load order, each seeing the previous one's replacement, then the raw hooks
// of that stage (rebuild_model after transform_model, rewrite_prompt after
// prompt, rewrite_compaction after compaction, rewrite_approval after
// approval). A hook that fails, or whose replacement exceeds the event's
// powers, is skipped with a note. payload is not modified; its values are
// JSON-like (map[string]any, []any, string, bool, float64 or json.Number,
// nil). Dispatch, AssemblePrompt, PrepareModelCall, Compact and the turn
// methods run their own stages; RunHook is for the others and for hosts
// that drive a stage themselves. When ctx has already ended no hook runs
// and the error is ErrCancelled; before Start none runs and the error is
// ErrNotStarted. The other moments of this file run no
// plugin code either once ctx has ended (they leave their input as it is).
func (h *Host) RunHook(ctx context.Context, name string, payload map[string]any) (HookResult, error) {
	event := contrib.HookEvent(name)
	spec := contrib.LookupHook(event)
	if spec == nil || spec.Raw {
		return HookResult{}, codeErrorf(ErrUnknownHookEvent, "unknown hook event %q; want one of %s", event, strings.Join(HookEvents(), ", "))
	}
	if err := h.serving("hook " + name); err != nil {
		return HookResult{Payload: payload}, err // no hook runs
	}
	if ctx.Err() != nil {
		return HookResult{Payload: payload}, cancelled(ctx) // no hook runs
	}
	rn := &runNotes{h: h}
	out := contrib.RunHooks(ctx, h.registry.View().HookRuns(event), event, payload, rn.add)
	return HookResult{Payload: out, Notes: rn.notes()}, nil
}

// HookEvents lists the event names RunHook accepts, in the order of the
// hook table (docs/points.md, "Hooks").
func HookEvents() []string { return contrib.HookEventNames(false) }

func (h *Host) hook(ctx context.Context, event contrib.HookEvent, payload map[string]any) map[string]any {
	return contrib.RunHooks(ctx, h.registry.View().HookRuns(event), event, payload, h.note)
}

// ThreadStarted tells the thread observers that thread started; they may
// add entries scoped to it (ctx.contributions, DC11).
func (h *Host) ThreadStarted(ctx context.Context, thread string) {
	h.observe(ctx, contrib.PointThreadObserver, thread, map[string]any{"event": "started", "thread": thread, "parent": ""})
}

// ThreadForked tells the thread observers that child was forked from
// parent. The child inherits no thread-scoped entry of the parent (DC11):
// an observer re-registers what should follow the fork.
func (h *Host) ThreadForked(ctx context.Context, parent, child string) {
	h.observe(ctx, contrib.PointThreadObserver, child, map[string]any{"event": "forked", "thread": child, "parent": parent})
}

// ThreadEnded tells the thread observers that thread ended, then releases
// every entry scoped to it and forgets what was captured for it.
func (h *Host) ThreadEnded(ctx context.Context, thread string) {
	h.observe(ctx, contrib.PointThreadObserver, thread, map[string]any{"event": "ended", "thread": thread, "parent": ""})
	h.registry.EndThread(thread)
	h.points.forget(thread)
}

// UserMessage runs the user_message hooks on the text the user sent, before
// it is stored, and returns the text to store: a hook may replace it, never
// with blank text (HK2).
func (h *Host) UserMessage(ctx context.Context, thread, text string) string {
	out := h.hook(ctx, contrib.HookUserMessage, map[string]any{"thread": thread, "text": text})
	s, _ := out["text"].(string)
	return s
}

// TurnStarted runs the turn_started hooks (read only), then the turn
// observers, which may add entries scoped to thread (DC11). text is the
// stored user text.
func (h *Host) TurnStarted(ctx context.Context, thread, turn, text string) {
	p := map[string]any{"thread": thread, "turn": turn, "text": text, "mode": h.Session().Facts().Mode}
	h.hook(ctx, contrib.HookTurnStarted, p)
	h.observe(ctx, contrib.PointTurnObserver, thread, map[string]any{"event": "started", "thread": thread, "turn": turn, "stop_reason": ""})
}

// TurnFinished runs the turn_finished hooks (read only), then the turn
// observers, with the stop reason.
func (h *Host) TurnFinished(ctx context.Context, thread, turn, text, stopReason string) {
	p := map[string]any{"thread": thread, "turn": turn, "text": text, "mode": h.Session().Facts().Mode, "stop_reason": stopReason}
	h.hook(ctx, contrib.HookTurnFinished, p)
	h.observe(ctx, contrib.PointTurnObserver, thread, map[string]any{"event": "finished", "thread": thread, "turn": turn, "stop_reason": stopReason})
}

// ModelResponse runs the model_response hooks (read only) on one response:
// its purpose, finish reason, items and usage. usage holds token counts
// by name — input_tokens, output_tokens, and when the provider reports
// them total_tokens, cached_input_tokens, reasoning_tokens — and anything
// else the embedder adds; the hooks always see input_tokens, output_tokens
// and total_tokens as ints (0 when not reported; total_tokens their sum
// when not given). docs/api.md documents the shape plugins see.
func (h *Host) ModelResponse(ctx context.Context, thread, purpose, finishReason string, items []ModelItem, usage map[string]any) {
	h.hook(ctx, contrib.HookModelResponse, map[string]any{"thread": thread, "purpose": purpose,
		"finish_reason": finishReason, "items": modelItemsValue(items), "usage": usageValue(usage)})
}

// usageValue is the usage dict of a model_response payload: a copy of
// usage with the three counts every hook may rely on.
func usageValue(usage map[string]any) map[string]any {
	out := make(map[string]any, len(usage)+3)
	for k, v := range usage {
		out[k] = v
	}
	in, outTokens := tokenCount(out["input_tokens"]), tokenCount(out["output_tokens"])
	out["input_tokens"], out["output_tokens"] = in, outTokens
	if _, ok := out["total_tokens"]; ok {
		out["total_tokens"] = tokenCount(out["total_tokens"])
	} else {
		out["total_tokens"] = in + outTokens
	}
	return out
}

// tokenCount reads a count an embedder may give as any Go number (or a
// JSON number); anything else is 0.
func tokenCount(v any) int64 {
	switch n := v.(type) {
	case int:
		return int64(n)
	case int32:
		return int64(n)
	case int64:
		return n
	case uint64:
		return int64(n)
	case float64:
		return int64(n)
	case json.Number:
		i, _ := n.Int64()
		return i
	}
	return 0
}

// observe runs an observer point: every entry, failures skipped (DC3).
func (h *Host) observe(ctx context.Context, point contrib.PointName, thread string, ev map[string]any) {
	_, _ = h.registry.Resolve(point, thread).Collect(ctx, ev, nil)
}

// Trace sends one trace event to the trace sinks (observers).
func (h *Host) Trace(ctx context.Context, thread, name string, attributes map[string]any) {
	if attributes == nil {
		attributes = map[string]any{}
	}
	h.observe(ctx, contrib.PointTraceSink, thread, map[string]any{"thread": thread, "name": name, "attributes": attributes})
}

// Compact produces the summary of a compaction of thread: the compaction
// hooks may append to the summary prompt or the body and the
// rewrite_compaction raw hooks rewrite them (HK2, HK3); then the
// compaction summarizer — the host's (Options.Points.Summarize) or the
// plugin entry that replaced it — writes the summary. The summarizer is
// authoritative: its failure fails the compaction with an error naming the
// point and the plugin, wrapping the entry's code (ErrPointFailed, or its
// own error(code, …)) (DC3). A replacement answering None suppresses the
// summary ("", nil). Before Start the error is ErrNotStarted.
func (h *Host) Compact(ctx context.Context, thread, prompt, body string) (string, error) {
	if err := h.serving("compact"); err != nil {
		return "", err
	}
	if ctx.Err() != nil {
		return "", cancelled(ctx)
	}
	p := h.hook(ctx, contrib.HookCompaction, map[string]any{"thread": thread, "prompt": prompt, "body": body})
	outs, err := h.registry.Resolve(contrib.PointCompactionSummary, thread).Collect(ctx, p, textAnswer)
	if err != nil || len(outs) == 0 {
		return "", pointError(err)
	}
	return outs[0].Value.(string), nil
}

// Compactable reports whether the results of tool may be compacted in
// thread: the compactable_policy entries are asked in order, the host's
// (Options.Points.Compactable) last; the first answer decides, and with
// none the results are kept.
func (h *Host) Compactable(ctx context.Context, thread, tool string) bool {
	out, ok, _ := h.registry.Resolve(contrib.PointCompactablePolicy, thread).First(ctx,
		map[string]any{"thread": thread, "tool": tool}, func(_, out any) (any, error) {
			if _, ok := out.(bool); !ok {
				return nil, fmt.Errorf("returned a %s; want a bool or None", contrib.JSONKind(out))
			}
			return out, nil
		})
	return ok && out.Value == true
}

// Subagent is one subagent runtime a plugin offers.
type Subagent struct {
	Name, Description, Instructions string
	Plugin                          string
}

// Subagents lists the subagent runtimes the subagent_runtime entries offer
// to thread (per call).
func (h *Host) Subagents(ctx context.Context, thread string) []Subagent {
	outs, _ := h.registry.Resolve(contrib.PointSubagentRuntime, thread).Collect(ctx, map[string]any{"thread": thread}, subagentsAnswer)
	var list []Subagent
	for _, o := range outs {
		for _, s := range o.Value.([]Subagent) {
			s.Plugin = o.Entry.Origin
			list = append(list, s)
		}
	}
	return list
}

func subagentsAnswer(_, out any) (any, error) {
	items, ok := out.([]any)
	if !ok {
		items = []any{out}
	}
	var list []Subagent
	for _, x := range items {
		m, ok := x.(map[string]any)
		name, _ := m["name"].(string)
		if !ok || name == "" {
			return nil, fmt.Errorf("returned a %s; want {name, description, instructions} or a list of them", contrib.JSONKind(x))
		}
		s := Subagent{Name: name}
		s.Description, _ = m["description"].(string)
		s.Instructions, _ = m["instructions"].(string)
		list = append(list, s)
	}
	return list, nil
}

// SuggestCommitMessage suggests a commit message for diff: the host's
// suggester (Options.Points.CommitMessage) or the plugin entry that
// replaced it; "" when there is none.
func (h *Host) SuggestCommitMessage(ctx context.Context, thread, diff string) string {
	if list := h.texts(ctx, contrib.PointCommitMessage, thread, map[string]any{"thread": thread, "diff": diff}); len(list) > 0 {
		return list[0]
	}
	return ""
}

// Welcome returns the welcome suggestions: the host's
// (Options.Points.Welcome) or those of the plugin entry that replaced them.
func (h *Host) Welcome(ctx context.Context) []string {
	return h.texts(ctx, contrib.PointWelcome, "", map[string]any{"workspace": h.Session().Facts().Workspace})
}

// HookInfo is one registered hook or raw hook.
type HookInfo struct {
	Event  string // the hook event ("user_message", "approval", …)
	Raw    bool
	Plugin string
	Pos    Position
}

// Hooks lists every hook and raw hook, stage by stage in the order of the
// hook table, each stage in the order its hooks run (HK1, HK3).
func (h *Host) Hooks() []HookInfo {
	view := h.registry.View()
	var out []HookInfo
	for _, spec := range contrib.Hooks {
		if spec.Raw {
			continue
		}
		for _, r := range view.HookRuns(spec.Event) {
			out = append(out, HookInfo{Event: string(r.Entry.Event), Raw: r.Entry.Raw, Plugin: r.Plugin, Pos: Position(r.Entry.Pos)})
		}
	}
	return out
}
