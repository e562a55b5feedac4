package contrib

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// HookEvent names a hook event (HK2) or a raw hook event (HK3).
type HookEvent string

// The hook events (HK2).
const (
	HookSessionStarted HookEvent = "session_started"
	HookSessionEnded   HookEvent = "session_ended"
	HookPrompt         HookEvent = "prompt"
	HookUserMessage    HookEvent = "user_message"
	HookTurnStarted    HookEvent = "turn_started"
	HookTurnFinished   HookEvent = "turn_finished"
	HookTransformModel HookEvent = "transform_model"
	HookModelResponse  HookEvent = "model_response"
	HookToolCall       HookEvent = "tool_call"
	HookToolResult     HookEvent = "tool_result"
	HookApproval       HookEvent = "approval"
	HookCompaction     HookEvent = "compaction"
)

// The raw hook events (HK3); each runs after the ordinary hooks of one
// stage.
const (
	rawRebuildModel      HookEvent = "rebuild_model"
	rawRewritePrompt     HookEvent = "rewrite_prompt"
	rawRewriteCompaction HookEvent = "rewrite_compaction"
	rawRewriteApproval   HookEvent = "rewrite_approval"
)

// riskRank returns the position of risk in Risks (lowest first), or -1. An
// approval hook may only raise it (HK2).
func riskRank(risk string) int { return slices.Index(risks, risk) }

// power is what a hook may do to one payload field.
type power uint8

const (
	read          power = iota // may not change
	replaceText                // any string
	nonBlankText               // a string with something besides white space
	appendText                 // a string that starts with the previous value
	replaceObject              // a JSON object
	raiseRisk                  // a risk level no lower than before
	raiseFlag                  // false may become true, never the reverse
	anyRisk                    // raw: any risk level
	anyFlag                    // raw: either bool
	itemsText                  // transform_model: only the text of user, assistant and tool items
	itemsRebuild               // rebuild_model: any items the host can represent
)

// HookSpec is one row of the hook table: an event, its payload fields and
// what a hook may change in each (HK2, HK3).
type HookSpec struct {
	Event HookEvent
	Raw   bool
	// After is, for a raw hook, the ordinary event whose hooks run before
	// it (HK3).
	After  HookEvent
	Powers string // one English line, for the documentation and notes
	fields map[string]power
}

// Hooks is the hook table, ordinary events first, in documentation order.
var Hooks = []HookSpec{
	{Event: HookSessionStarted, Powers: "reads workspace, session id and approval mode",
		fields: map[string]power{"workspace": read, "session_id": read, "approval_mode": read}},
	{Event: HookSessionEnded, Powers: "reads workspace, session id and approval mode",
		fields: map[string]power{"workspace": read, "session_id": read, "approval_mode": read}},
	{Event: HookPrompt, Powers: "appends instruction text only",
		fields: map[string]power{"thread": read, "prompt": appendText}},
	{Event: HookUserMessage, Powers: "replaces the user message before it is stored, never with blank text",
		fields: map[string]power{"thread": read, "text": nonBlankText}},
	{Event: HookTurnStarted, Powers: "reads the stored user text and the mode",
		fields: map[string]power{"thread": read, "turn": read, "text": read, "mode": read}},
	{Event: HookTurnFinished, Powers: "reads the stored user text, the mode and the stop reason",
		fields: map[string]power{"thread": read, "turn": read, "text": read, "mode": read, "stop_reason": read}},
	{Event: HookTransformModel, Powers: "changes the text of user, assistant or tool-result items of one outbound call; no reorder, add, drop or system edit",
		fields: map[string]power{"thread": read, "purpose": read, "items": itemsText}},
	{Event: HookModelResponse, Powers: "reads purpose, finish reason, items and usage",
		fields: map[string]power{"thread": read, "purpose": read, "finish_reason": read, "items": read, "usage": read}},
	{Event: HookToolCall, Powers: "replaces the name or the arguments, not the call id; cannot skip the call or its approval",
		fields: map[string]power{"thread": read, "id": read, "name": nonBlankText, "arguments": replaceObject}},
	{Event: HookToolResult, Powers: "replaces the result text",
		fields: map[string]power{"thread": read, "id": read, "name": read, "text": replaceText}},
	{Event: HookApproval, Powers: "raises the risk or requires another prompt; never lowers or auto-passes",
		fields: map[string]power{"thread": read, "id": read, "name": read, "arguments": read, "risk": raiseRisk, "prompt": raiseFlag}},
	{Event: HookCompaction, Powers: "appends to the summary prompt or body",
		fields: map[string]power{"thread": read, "prompt": appendText, "body": appendText}},
	{Event: rawRebuildModel, Raw: true, After: HookTransformModel, Powers: "rebuilds the items of one outbound call: reorder, add, drop, system edits",
		fields: map[string]power{"thread": read, "purpose": read, "items": itemsRebuild}},
	{Event: rawRewritePrompt, Raw: true, After: HookPrompt, Powers: "rewrites the whole instruction text",
		fields: map[string]power{"thread": read, "prompt": replaceText}},
	{Event: rawRewriteCompaction, Raw: true, After: HookCompaction, Powers: "rewrites the summary prompt and body",
		fields: map[string]power{"thread": read, "prompt": replaceText, "body": replaceText}},
	{Event: rawRewriteApproval, Raw: true, After: HookApproval, Powers: "sets any risk level and whether to prompt",
		fields: map[string]power{"thread": read, "id": read, "name": read, "arguments": read, "risk": anyRisk, "prompt": anyFlag}},
}

var hookIndex = func() map[HookEvent]*HookSpec {
	m := make(map[HookEvent]*HookSpec, len(Hooks))
	for i := range Hooks {
		m[Hooks[i].Event] = &Hooks[i]
	}
	return m
}()

// LookupHook returns the table row of event, or nil.
func LookupHook(event HookEvent) *HookSpec { return hookIndex[event] }

// HookEventNames lists the ordinary (raw false) or raw event names.
func HookEventNames(raw bool) []string {
	var out []string
	for _, h := range Hooks {
		if h.Raw == raw {
			out = append(out, string(h.Event))
		}
	}
	return out
}

// Fields lists the event's payload fields, sorted.
func (s *HookSpec) Fields() []string { return slices.Sorted(maps.Keys(s.fields)) }

// HookFunc runs one hook. It returns nil (Starlark None: no change) or a
// map of the fields it replaces. It must be safe for concurrent use.
type HookFunc func(ctx context.Context, event HookEvent, payload map[string]any) (any, error)

// HookEntry is one hook or raw hook contribution (HK1–HK3).
type HookEntry struct {
	Event HookEvent `json:"event"`
	Raw   bool      `json:"raw,omitempty"`
	Pos   Pos       `json:"pos"`
	Run   HookFunc  `json:"-"`
}

// check applies a hook's replacement to payload under the event's powers.
// It returns the new payload, or an error saying why the replacement is
// refused.
func (s *HookSpec) check(payload map[string]any, out any) (map[string]any, error) {
	repl, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("returned a %s; want a dict of the fields it replaces, or None", JSONKind(out))
	}
	next := maps.Clone(payload)
	if next == nil {
		next = map[string]any{}
	}
	for _, k := range slices.Sorted(maps.Keys(repl)) {
		v := repl[k]
		pw, known := s.fields[k]
		if !known {
			return nil, fmt.Errorf("sets %q, which is not a field of %s (its fields: %s)", k, s.Event, strings.Join(s.Fields(), ", "))
		}
		if err := pw.allows(payload[k], v); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		next[k] = v
	}
	return next, nil
}

// allows returns why a field may not go from prev to v, or nil.
func (pw power) allows(prev, v any) error {
	text, isText := v.(string)
	switch pw {
	case read:
		if !jsonEqual(prev, v) {
			return errors.New("this event's hooks may only read it")
		}
	case replaceText, anyRisk, nonBlankText, appendText:
		if !isText {
			return fmt.Errorf("got a %s; want a string", JSONKind(v))
		}
	case replaceObject:
		if _, ok := v.(map[string]any); !ok {
			return fmt.Errorf("got a %s; want an object", JSONKind(v))
		}
	case raiseFlag, anyFlag:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("got a %s; want a bool", JSONKind(v))
		}
	}
	switch pw {
	case nonBlankText:
		if strings.TrimSpace(text) == "" {
			return errors.New("a hook may not blank the user message")
		}
	case appendText:
		if before, _ := prev.(string); !strings.HasPrefix(text, before) {
			return errors.New("this event's hooks may only append; the new text does not start with the previous one")
		}
	case raiseRisk:
		before, _ := prev.(string)
		if riskRank(text) < 0 {
			return fmt.Errorf("%q is not a risk level (%s)", text, strings.Join(risks, ", "))
		}
		if riskRank(text) < riskRank(before) {
			return fmt.Errorf("a hook may raise the risk, never lower it (%s to %s)", before, text)
		}
	case anyRisk:
		if riskRank(text) < 0 {
			return fmt.Errorf("%q is not a risk level (%s)", text, strings.Join(risks, ", "))
		}
	case raiseFlag:
		if prev == true && v == false {
			return errors.New("a hook may require another prompt, never waive one")
		}
	case itemsText:
		return itemsTextOnly(prev, v)
	case itemsRebuild:
		_, err := modelItems(v)
		return err
	}
	return nil
}

// modelItem is one item of an outbound model call.
type modelItem struct{ id, role, text string }

var itemRoles = []string{"system", "user", "assistant", "tool"}

// modelItems reads a list of {id, role, text} items the host can represent:
// known roles, string text, unique ids.
func modelItems(v any) ([]modelItem, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("got a %s; want a list of items", JSONKind(v))
	}
	seen := map[string]bool{}
	out := make([]modelItem, len(list))
	for i, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("item %d is a %s; want {id, role, text}", i, JSONKind(x))
		}
		id, _ := m["id"].(string)
		role, _ := m["role"].(string)
		text, isText := m["text"].(string)
		switch {
		case id == "":
			return nil, fmt.Errorf("item %d has no id", i)
		case seen[id]:
			return nil, fmt.Errorf("item id %q is repeated; the host cannot represent two items with one id", id)
		case !slices.Contains(itemRoles, role):
			return nil, fmt.Errorf("item %q has role %q; want one of %s", id, role, strings.Join(itemRoles, ", "))
		case !isText:
			return nil, fmt.Errorf("item %q has no text string", id)
		}
		seen[id] = true
		out[i] = modelItem{id, role, text}
	}
	return out, nil
}

// itemsTextOnly allows next only when it keeps prev's items, ids, roles and
// order and changes no system item (HK2 transform_model).
func itemsTextOnly(prev, next any) error {
	before, err := modelItems(prev)
	if err != nil {
		before = nil
	}
	after, err := modelItems(next)
	if err != nil {
		return err
	}
	if len(after) != len(before) {
		return fmt.Errorf("transform_model hooks may not add or drop items (%d items became %d); use raw_hook(\"rebuild_model\", ...)", len(before), len(after))
	}
	for i := range after {
		b, a := before[i], after[i]
		switch {
		case a.id != b.id:
			return fmt.Errorf("transform_model hooks may not reorder items (item %d was %q, now %q)", i, b.id, a.id)
		case a.role != b.role:
			return fmt.Errorf("item %q: transform_model hooks may not change a role", a.id)
		case a.role == "system" && a.text != b.text:
			return fmt.Errorf("item %q: transform_model hooks may not edit a system item", a.id)
		}
	}
	return nil
}

// JSONKind names the type of a decoded JSON value in the words Starlark
// authors use: None, string, bool, dict, list or number.
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case string:
		return "string"
	case bool:
		return "bool"
	case map[string]any:
		return "dict"
	case []any:
		return "list"
	}
	return "number"
}

// SameJSON reports whether two decoded JSON values are equal (numbers
// compared by their text).
func SameJSON(a, b any) bool { return jsonEqual(a, b) }

// jsonEqual compares two decoded JSON values, numbers by their text.
func jsonEqual(a, b any) bool {
	return equalWith(a, b, func(a, b any) bool {
		return fmt.Sprint(a) == fmt.Sprint(b) && JSONKind(a) == JSONKind(b)
	})
}

// equalWith compares two decoded JSON values: objects and arrays item by
// item, every other value (a leaf of a) with leaf.
func equalWith(a, b any, leaf func(a, b any) bool) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			if w, ok := bm[k]; !ok || !equalWith(v, w, leaf) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equalWith(a[i], bl[i], leaf) {
				return false
			}
		}
		return true
	}
	return leaf(a, b)
}

// HookRun is one hook as a view resolves it: the entry and the generation
// it runs in.
type HookRun struct {
	Plugin     string
	Generation string
	Entry      *HookEntry
	gate       *Gate
}

// HookRuns returns the hooks of a stage: the ordinary hooks of event in
// plugin load order and registration order (HK1), then the raw hooks that
// follow that stage, in the same order (HK3). The slice must not be
// modified.
func (v *View) HookRuns(event HookEvent) []HookRun { return v.hooks[event] }

func (v *View) buildHooks() {
	v.hooks = map[HookEvent][]HookRun{}
	for _, raw := range []bool{false, true} {
		for _, p := range v.order {
			for i := range p.Set.Hooks {
				h := &p.Set.Hooks[i]
				if h.Raw != raw {
					continue
				}
				stage := h.Event
				if raw {
					stage = LookupHook(h.Event).After
				}
				v.hooks[stage] = append(v.hooks[stage], HookRun{Plugin: p.Plugin, Generation: p.Generation, Entry: h, gate: p.Gate})
			}
		}
	}
}

// RunHooks runs the hooks of one stage on payload (HK1–HK3): ordinary hooks
// in load order, each seeing the previous replacement, then the stage's raw
// hooks. A hook that fails, or whose replacement exceeds its event's powers
// (a raw hook: one the host cannot represent), is skipped with a note; the
// others still run. It returns the final payload; payload itself is not
// modified.
func RunHooks(ctx context.Context, runs []HookRun, event HookEvent, payload map[string]any, note func(Diagnostic)) map[string]any {
	for _, r := range runs {
		spec := LookupHook(r.Entry.Event)
		var out any
		var err error
		ran := admit(ctx, r.gate, func(ctx context.Context) {
			out, err = callHook(ctx, r.Entry, payload)
		})
		if !ran || (err == nil && out == nil) {
			continue
		}
		what := "hook"
		if spec.Raw {
			what = "raw hook"
		}
		if err != nil {
			d := entryFailure(err, r.Plugin, r.Entry.Pos, what+" "+string(r.Entry.Event))
			if why, fix, ok := CannotDeny(r.Entry.Event); ok && !spec.Raw {
				// A guard written as a hook: say that the call went on.
				note(Diag(HookCannotDeny, r.Plugin, d.Pos, "%s; %s", d.Message, why).WithRemedy("%s", fix).withDetail(d.Detail))
				continue
			}
			note(Diag(HookSkipped, r.Plugin, d.Pos, "%s; the %s was skipped", d.Message, what).withDetail(d.Detail))
			continue
		}
		next, err := spec.check(payload, out)
		if err != nil {
			code := HookSkipped
			if spec.Raw {
				code = RawHookRefused
			}
			note(Diag(code, r.Plugin, r.Entry.Pos, "%s %s: %v; the %s was skipped", what, r.Entry.Event, err, what))
			continue
		}
		payload = next
	}
	return payload
}

// callHook runs one hook, recovering a panic into an error.
func callHook(ctx context.Context, h *HookEntry, payload map[string]any) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return h.Run(ctx, h.Event, payload)
}

func (d Diagnostic) withDetail(detail string) Diagnostic {
	d.Detail = detail
	return d
}

// cannotDeny holds, for each event whose hooks authors take for guards,
// what an error() or fail() of its hook really does and what stops a call
// (HK2: no hook can skip or deny a call).
var cannotDeny = map[HookEvent][2]string{
	HookToolCall: {"a tool_call hook cannot deny the call: its error() or fail() only skips the hook, and the call goes on",
		"deny in a dispatch_policy entry (return the reason as a string), or ask the user in a dispatch_approval entry (docs/points.md, guards)"},
	HookApproval: {"an approval hook cannot deny the call: its error() or fail() only skips the hook, and the call is approved as before",
		"return {\"prompt\": True} to require the user's approval, or deny in a dispatch_policy entry (docs/points.md, guards)"},
	HookToolResult: {"a tool_result hook cannot undo the call: its error() or fail() only skips the hook, and the result goes through unchanged",
		"replace the text by returning {\"text\": ...}, or deny the call before it runs in a dispatch_policy entry (docs/points.md, guards)"},
}

// CannotDeny returns, for a hook event authors take for a guard (tool_call,
// approval, tool_result), why an error() or fail() of its hook does not
// stop the call, and what does; ok is false for the other events.
func CannotDeny(event HookEvent) (why, fix string, ok bool) {
	w, ok := cannotDeny[event]
	return w[0], w[1], ok
}

// PlacedError is an error(code, message) a point entry or hook answered
// with, and the place of its error(...) call: the note about it points
// there (issue 29 point 2).
type PlacedError struct {
	*ToolError
	Pos Pos
}

// Unwrap returns the ToolError.
func (e *PlacedError) Unwrap() error { return e.ToolError }

// entryFailure turns an entry's error into a diagnostic: a failure that
// carries one (a Starlark run) keeps its message, position and backtrace.
// what names the entry in a message of its own ("hook tool_call").
func entryFailure(err error, plugin string, pos Pos, what string) Diagnostic {
	if df, ok := err.(interface{ Diagnostic() Diagnostic }); ok {
		d := df.Diagnostic()
		if !d.Pos.IsValid() {
			d.Pos = pos
		}
		return d
	}
	var te *ToolError
	if errors.As(err, &te) {
		if pe := (*PlacedError)(nil); errors.As(err, &pe) && pe.Pos.IsValid() {
			pos = pe.Pos // where error(...) was called, not the entry's constructor
		}
		return Diag(CallbackFailed, plugin, pos, "%s returned error(%q, %q)", what, te.Code, te.Message)
	}
	return Diag(CallbackFailed, plugin, pos, "%s: %v", what, err)
}

// AddHook stages a hook or raw hook (HK1, HK3). An event that is not in the
// table, or a raw event given as an ordinary one (or the reverse), is left
// out with a PointEntryInvalid diagnostic.
func (s *Staging) AddHook(h HookEntry) {
	if err := CheckHookEvent(h.Event, h.Raw); err != nil {
		s.Report(PointEntryInvalid, h.Pos, "%v; it is left out", err)
		return
	}
	s.set.Hooks = append(s.set.Hooks, h)
}

// CheckHookEvent returns why event cannot be used by hook(...) (raw
// false) or raw_hook(...) (raw true), with the nearest event when it looks
// misspelled; nil when it can.
func CheckHookEvent(event HookEvent, raw bool) error {
	spec := LookupHook(event)
	switch {
	case spec == nil:
		names := HookEventNames(raw)
		return fmt.Errorf("hook event %q is not one of %s%s", event, strings.Join(names, ", "), DidYouMean(string(event), names))
	case spec.Raw != raw && raw:
		return fmt.Errorf("%s is an ordinary hook event; use hook(%q, ...)", event, event)
	case spec.Raw != raw:
		return fmt.Errorf("%s is a raw hook event; use raw_hook(%q, ...)", event, event)
	}
	return nil
}

// CheckModelItems checks that v is a list of {id, role, text} items the
// host can represent — known roles, string text, unique ids — and returns
// why not, or nil.
func CheckModelItems(v any) error {
	_, err := modelItems(v)
	return err
}
