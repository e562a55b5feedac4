package starhost

import (
	"context"
	"fmt"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
)

// The points that build what a model call carries: the system prompt
// (captured per thread), the tools of a thread (captured), the pre-send
// transforms and middleware of each call, and the context entries of a turn.

// PromptSection is one section of an assembled system prompt, with its
// origin.
type PromptSection struct {
	Point    PointName // prompt_section or thread_context
	Target   string    // the named default it stands for; "" for an appended section
	Origin   string    // the plugin id; "" for the host's default
	Replaced bool      // a plugin's entry replaces the default Target
	Scope    string    // "workspace", or "thread" for an entry added at run time
	Text     string
}

// Prompt is an assembled system prompt (Thread.AssemblePrompt): the
// caller's own copy, to keep or change.
type Prompt struct {
	Thread   string
	Text     string
	Sections []PromptSection
	// Assembler is the plugin whose prompt_assembler took over (DC10), or
	// "".
	Assembler string
	// Memory is the plugin whose replacement of the memory target took
	// over the whole prompt (MC3, docs/points.md), or "".
	Memory string
	// Notes are the notes of the assembly: skipped sections and hooks.
	Notes []Note
}

// promptFor is Thread.AssemblePrompt's work for thread.
func (h *Host) promptFor(ctx context.Context, thread string) *Prompt {
	return h.points.prompts.get(thread+h.sessionOf(ctx).tag, func() (*Prompt, bool) {
		p := h.assemblePrompt(ctx, thread)
		return p, ctx.Err() == nil
	})
}

func (h *Host) assemblePrompt(ctx context.Context, thread string) *Prompt {
	rn := &runNotes{h: h}
	p := &Prompt{Thread: thread}
	if s, ok := h.memoryTakeover(ctx, thread, rn); ok { // MC3: sections and assembler step aside
		p.Sections, p.Text, p.Memory = []PromptSection{s}, s.Text, s.Origin
		return h.promptHooks(ctx, p, rn)
	}
	req := map[string]any{"thread": thread, "mode": h.factsOf(ctx).Mode}
	var texts []string
	sections := []any{}
	for _, point := range []contrib.PointName{contrib.PointPromptSection, contrib.PointThreadContext} {
		outs, _ := rn.resolve(point, thread).Collect(ctx, req, textAnswer)
		for _, o := range outs {
			s := PromptSection{Point: PointName(point), Target: o.Entry.Target, Origin: o.Entry.Origin, Replaced: o.Entry.Replaced,
				Scope: string(o.Entry.Scope), Text: o.Value.(string)}
			p.Sections = append(p.Sections, s)
			texts = append(texts, s.Text)
			sections = append(sections, map[string]any{"target": s.Target, "origin": s.Origin, "text": s.Text})
		}
	}
	p.Text = strings.Join(texts, "\n\n")
	out, ok, _ := rn.resolve(contrib.PointPromptAssembler, thread).Last(ctx,
		map[string]any{"thread": thread, "prompt": p.Text, "sections": sections}, textAnswer)
	if ok {
		p.Text, p.Assembler = out.Value.(string), out.Entry.Origin
	}
	return h.promptHooks(ctx, p, rn)
}

// promptHooks runs the prompt hooks on an assembled prompt (HK2, HK3).
func (h *Host) promptHooks(ctx context.Context, p *Prompt, rn *runNotes) *Prompt {
	thread := p.Thread
	payload := contrib.RunHooks(ctx, h.registry.View().HookRuns(contrib.HookPrompt), contrib.HookPrompt,
		map[string]any{"thread": thread, "prompt": p.Text}, rn.add)
	p.Text, _ = payload["prompt"].(string)
	p.Notes = rn.notes()
	return p
}

// ModelItem is one item of an outbound model call.
type ModelItem struct {
	// ID identifies the item in the embedder's transcript.
	ID string `json:"id"`
	// Role is system, user, assistant or tool.
	Role string `json:"role"`
	// Text is the item's text, as middleware and hooks left it.
	Text string `json:"text"`
}

// OutboundCall is one outbound model call (PrepareModelCall).
type OutboundCall struct {
	// Purpose says what the call is for: "turn", "review",
	// "compaction", ...
	Purpose string
	// Items are the call's items, in order.
	Items []ModelItem
	// Context is the text the pre-send context transforms added, in order.
	Context []string
}

// prepareModelCall is Thread.PrepareModelCall's work for thread.
func (h *Host) prepareModelCall(ctx context.Context, thread string, req OutboundCall) OutboundCall {
	rn := &runNotes{h: h}
	in := map[string]any{"thread": thread, "purpose": req.Purpose, "inputs": h.memoryInputs(ctx, thread)}
	transforms := rn.resolve(contrib.PointContextTransform, thread)
	if h.promptFor(ctx, thread).Memory != "" {
		transforms = transforms.WithoutTarget(contrib.TargetMemory)
	}
	outs, _ := transforms.Collect(ctx, in, textAnswer)
	for _, o := range outs {
		req.Context = append(req.Context, o.Value.(string))
	}
	pipe := *h.points.pipes.get(thread, func() (*contrib.Resolution, bool) {
		return h.registry.Resolve(contrib.PointChatMiddleware, thread), true
	})
	pipe.Notes = rn.add
	v, _ := pipe.Fold(ctx, outboundValue(thread, req), middlewareAnswer)
	payload := contrib.RunHooks(ctx, h.registry.View().HookRuns(contrib.HookTransformModel), contrib.HookTransformModel,
		v.(map[string]any), rn.add)
	req.Items = modelItemsOf(payload["items"])
	return req
}

// chatContext is Thread.ChatContext's work for thread.
func (h *Host) chatContext(ctx context.Context, thread, turn string) []string {
	return h.texts(ctx, contrib.PointChatContext, thread, map[string]any{"thread": thread, "turn": turn})
}

// signals is Thread.Signals's work for thread.
func (h *Host) signals(ctx context.Context, thread string) []string {
	return h.texts(ctx, contrib.PointThreadSignal, thread, map[string]any{"thread": thread})
}

// texts collects the str or list-of-str answers of a point.
func (h *Host) texts(ctx context.Context, point contrib.PointName, thread string, in map[string]any) []string {
	rn := &runNotes{h: h}
	outs, _ := rn.resolve(point, thread).Collect(ctx, in, textsAnswer)
	var out []string
	for _, o := range outs {
		out = append(out, o.Value.([]string)...)
	}
	return out
}

// textAnswer accepts a string.
func textAnswer(_, out any) (any, error) {
	if _, ok := out.(string); !ok {
		return nil, fmt.Errorf("returned a %s; want a string or None", contrib.JSONKind(out))
	}
	return out, nil
}

// textsAnswer accepts a string or a list of strings, as a []string.
func textsAnswer(_, out any) (any, error) {
	switch v := out.(type) {
	case string:
		return []string{v}, nil
	case []any:
		list := make([]string, len(v))
		for i, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("returned a list with a %s at %d; want strings", contrib.JSONKind(x), i)
			}
			list[i] = s
		}
		return list, nil
	}
	return nil, fmt.Errorf("returned a %s; want a string, a list of strings or None", contrib.JSONKind(out))
}

// middlewareAnswer accepts a request whose items the host can represent,
// keeping the thread and purpose of the input.
func middlewareAnswer(in, out any) (any, error) {
	m, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("returned a %s; want the request with its items, or None", contrib.JSONKind(out))
	}
	if err := contrib.CheckModelItems(m["items"]); err != nil {
		return nil, fmt.Errorf("returned items the host cannot send: %w", err)
	}
	next := map[string]any{}
	for k, v := range in.(map[string]any) {
		next[k] = v
	}
	next["items"] = m["items"]
	return next, nil
}
