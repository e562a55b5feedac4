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

// runHook is Session.RunHook's work.
func (h *Host) runHook(ctx context.Context, name string, payload map[string]any) (HookResult, error) {
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

// threadStarted is Thread.ThreadStarted's work for thread.
func (h *Host) threadStarted(ctx context.Context, thread string) {
	h.observe(ctx, contrib.PointThreadObserver, thread, map[string]any{"event": "started", "thread": thread, "parent": ""})
}

// threadForked is Thread.ThreadForked's work for thread.
func (h *Host) threadForked(ctx context.Context, parent, child string) {
	h.observe(ctx, contrib.PointThreadObserver, child, map[string]any{"event": "forked", "thread": child, "parent": parent})
}

// threadEnded is Thread.ThreadEnded's work for thread.
func (h *Host) threadEnded(ctx context.Context, thread string) {
	h.observe(ctx, contrib.PointThreadObserver, thread, map[string]any{"event": "ended", "thread": thread, "parent": ""})
	h.registry.EndThread(thread)
	h.points.forget(thread)
}

// userMessage is Thread.UserMessage's work for thread.
func (h *Host) userMessage(ctx context.Context, thread, text string) string {
	out := h.hook(ctx, contrib.HookUserMessage, map[string]any{"thread": thread, "text": text})
	s, _ := out["text"].(string)
	return s
}

// turnStarted is Thread.TurnStarted's work for thread.
func (h *Host) turnStarted(ctx context.Context, thread, turn, text string) {
	p := map[string]any{"thread": thread, "turn": turn, "text": text, "mode": h.factsOf(ctx).Mode}
	h.hook(ctx, contrib.HookTurnStarted, p)
	h.observe(ctx, contrib.PointTurnObserver, thread, map[string]any{"event": "started", "thread": thread, "turn": turn, "stop_reason": ""})
}

// turnFinished is Thread.TurnFinished's work for thread.
func (h *Host) turnFinished(ctx context.Context, thread, turn, text, stopReason string) {
	p := map[string]any{"thread": thread, "turn": turn, "text": text, "mode": h.factsOf(ctx).Mode, "stop_reason": stopReason}
	h.hook(ctx, contrib.HookTurnFinished, p)
	h.observe(ctx, contrib.PointTurnObserver, thread, map[string]any{"event": "finished", "thread": thread, "turn": turn, "stop_reason": stopReason})
}

// modelResponse is Thread.ModelResponse's work for thread.
func (h *Host) modelResponse(ctx context.Context, thread, purpose, finishReason string, items []ModelItem, usage map[string]any) {
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

// trace is Thread.Trace's work for thread.
func (h *Host) trace(ctx context.Context, thread, name string, attributes map[string]any) {
	if attributes == nil {
		attributes = map[string]any{}
	}
	h.observe(ctx, contrib.PointTraceSink, thread, map[string]any{"thread": thread, "name": name, "attributes": attributes})
}

// compact is Thread.Compact's work for thread.
func (h *Host) compact(ctx context.Context, thread, prompt, body string) (string, error) {
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

// compactable is Thread.Compactable's work for thread.
func (h *Host) compactable(ctx context.Context, thread, tool string) bool {
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

// subagents is Thread.Subagents's work for thread.
func (h *Host) subagents(ctx context.Context, thread string) []Subagent {
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

// suggestCommitMessage is Thread.SuggestCommitMessage's work for thread.
func (h *Host) suggestCommitMessage(ctx context.Context, thread, diff string) string {
	if list := h.texts(ctx, contrib.PointCommitMessage, thread, map[string]any{"thread": thread, "diff": diff}); len(list) > 0 {
		return list[0]
	}
	return ""
}

// welcome is Session.Welcome's work.
func (h *Host) welcome(ctx context.Context) []string {
	return h.texts(ctx, contrib.PointWelcome, "", map[string]any{"workspace": h.factsOf(ctx).Workspace})
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
