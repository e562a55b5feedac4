package contrib

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// PointName names one contribution point of the table (DC2). It is also the
// name of the point's Starlark constructor.
type PointName string

// The contribution points of DC2, in table order.
const (
	PointTools              PointName = "tool"
	PointCommands           PointName = "command"
	PointPromptSection      PointName = "prompt_section"
	PointPromptAssembler    PointName = "prompt_assembler"
	PointChatContext        PointName = "chat_context"
	PointThreadContext      PointName = "thread_context"
	PointContextTransform   PointName = "context_transform"
	PointChatMiddleware     PointName = "chat_middleware"
	PointDispatchPolicy     PointName = "dispatch_policy"
	PointDispatchApproval   PointName = "dispatch_approval"
	PointDispatchRecorder   PointName = "dispatch_recorder"
	PointDispatchNormalizer PointName = "dispatch_normalizer"
	PointThreadObserver     PointName = "thread_observer"
	PointTurnObserver       PointName = "turn_observer"
	PointThreadSignal       PointName = "thread_signal"
	PointToolRestriction    PointName = "tool_restriction"
	PointCompactionSummary  PointName = "compaction_summarizer"
	PointCompactablePolicy  PointName = "compactable_policy"
	PointSubagentRuntime    PointName = "subagent_runtime"
	PointTraceSink          PointName = "trace_sink"
	PointCommitMessage      PointName = "commit_message_suggester"
	PointWelcome            PointName = "welcome_suggester"
	PointToolProvider       PointName = "tool_provider"
	pointResourcePublisher  PointName = "resource_publisher"
)

// Tier is a set of the capability tiers of DC1.
type Tier uint8

// The tiers: A appends beside existing entries, B replaces a named default,
// C takes over the assembled result of a point.
const (
	tierAppend Tier = 1 << iota
	TierReplace
	tierTakeover
)

// String spells the set as the documentation does: "A", "A, B", "C".
func (t Tier) String() string {
	var parts []string
	for _, x := range []struct {
		t    Tier
		name string
	}{{tierAppend, "A"}, {TierReplace, "B"}, {tierTakeover, "C"}} {
		if t&x.t != 0 {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, ", ")
}

// Evaluation says when a point's entries are read (DC12).
type Evaluation uint8

// perCall points are resolved on every evaluation and see changes on the
// next one. Captured points are frozen into per-thread state (tool snapshot,
// middleware pipeline, instructions) and rebuilt through the invalidation
// signal.
//
// perPlanning points are asked once per tool planning; the answer is valid
// for that planning only (MC2).
const (
	perCall Evaluation = iota
	captured
	perPlanning
)

func (e Evaluation) String() string {
	switch e {
	case captured:
		return "captured per thread"
	case perPlanning:
		return "per tool planning"
	}
	return "per call"
}

// Combine says how a point's consumer uses the resolved list.
type Combine uint8

// Collect runs every entry on the same input and keeps each answer, in
// order. First asks the entries in order and stops at the first that
// answers (not None). combineFold runs the entries in order, each on the previous
// one's output. Last uses the last entry of the list (tier C, DC10).
const (
	collect Combine = iota
	first
	combineFold
	last
)

func (c Combine) String() string {
	return [...]string{"collect", "first answer", "fold", "last entry"}[c]
}

// FailurePolicy is a point's failure policy (DC3).
type FailurePolicy uint8

// fanOut logs a failing entry and skips it; the others still run.
// orderedFold logs and skips it and passes its input on to the next entry.
// Authoritative fails the whole operation with a clear error.
const (
	fanOut FailurePolicy = iota
	orderedFold
	authoritative
)

func (f FailurePolicy) String() string {
	return [...]string{"fan-out: log and skip", "ordered fold: skip, the value passes on", "authoritative: fails the operation"}[f]
}

// Scope is where an entry applies (DC11): the whole workspace, or one
// thread.
type Scope string

// The scopes. Workspace is the default; a forked thread does not inherit
// Thread-scoped entries.
const (
	ScopeWorkspace Scope = "workspace"
	ScopeThread    Scope = "thread"
)

// Target is a named default of a point: the host's own entry, which a tier B
// entry may shadow with replace = Name.
type Target struct {
	Name  string
	Order int // where the default stands in the resolved list
	// NoneGivesUp marks the one target (memory) where a replacement
	// answering None gives up and the default steps back in, so no agent
	// runs without its memory (DC9). Elsewhere None suppresses the default.
	NoneGivesUp bool
	Doc         string
}

// Order constants: the ends of every point's order range. Named defaults
// have their own order (the Order* constants below); entries without an
// order use 0.
const (
	OrderFirst = -1_000_000
	OrderLast  = 1_000_000
)

// The named default targets (DC1, DC9), with the orders their defaults stand
// at. Each is predeclared in Starlark as TARGET_<NAME> and ORDER_<NAME>.
const (
	TargetIdentity          = "identity"
	TargetToolUse           = "tool_use"
	TargetResponseStyle     = "response_style"
	TargetEnvironment       = "environment"
	TargetMemory            = "memory"
	targetHistoryTrim       = "history_trim"
	targetPromptCache       = "prompt_cache"
	TargetPolicy            = "policy"
	TargetApproval          = "approval"
	TargetRecorder          = "recorder"
	TargetNormalizer        = "normalizer"
	TargetCompactionSummary = "compaction_summary"
	TargetCompactable       = "compactable"
	TargetCommitMessage     = "commit_message"
	TargetWelcome           = "welcome"

	orderIdentity          = -400
	orderToolUse           = -300
	orderResponseStyle     = -200
	orderEnvironment       = -100
	orderMemory            = -100
	orderHistoryTrim       = -200
	orderPromptCache       = 900
	orderPolicy            = -100
	orderApproval          = 1000
	orderRecorder          = -100
	orderNormalizer        = 1000
	orderCompactionSummary = 0
	orderCompactable       = 1000
	orderCommitMessage     = 0
	orderWelcome           = 0
)

// Point is one row of the table of contribution points: everything the
// registry, the Starlark constructors, the documentation and the dev console
// know about it. Adding a point is one row here plus its adapter in
// starhost.
type Point struct {
	Name    PointName
	Keyword string // the contribute() keyword taking a list of entries
	Title   string // as DC2 names it
	Tiers   Tier
	Eval    Evaluation
	Combine Combine
	Failure FailurePolicy
	// Signature is the Starlark callback, with what it receives and
	// returns (docs/points.md describes each field).
	Signature string
	Targets   []Target
	// Registers marks points whose callbacks run for a thread and may add
	// thread-scoped entries with ctx.contributions.add (DC11).
	Registers bool
	// Kind marks the points served by their own contribution kind (tool,
	// command) rather than a generated constructor and the generic
	// registry.
	Kind bool
}

// Points is the one table of contribution points (DC2), in documentation
// order. It must not be modified.
var Points = []Point{
	{Name: PointTools, Keyword: "tools", Title: "Tools", Tiers: tierAppend, Eval: captured, Combine: collect, Failure: fanOut,
		Signature: "tool(name, run, ...): run(ctx, args) -> str | dict | list | error(...)", Kind: true},
	{Name: PointCommands, Keyword: "commands", Title: "Slash commands", Tiers: tierAppend, Eval: perCall, Combine: first, Failure: fanOut,
		Signature: "command(name, run, ...): run(ctx, inv) -> str | None", Kind: true},
	{Name: PointPromptSection, Keyword: "prompt_sections", Title: "System prompt sections", Tiers: tierAppend | TierReplace,
		Eval: captured, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, req{thread, mode}) -> str | None",
		Targets: []Target{
			{Name: TargetIdentity, Order: orderIdentity, Doc: "who the agent is"},
			{Name: TargetToolUse, Order: orderToolUse, Doc: "how to use the tools"},
			{Name: TargetResponseStyle, Order: orderResponseStyle, Doc: "how to answer"},
			{Name: TargetEnvironment, Order: orderEnvironment, Doc: "workspace, mode and model facts"},
		}},
	{Name: PointPromptAssembler, Keyword: "prompt_assemblers", Title: "System prompt assembler", Tiers: tierTakeover,
		Eval: captured, Combine: last, Failure: fanOut,
		Signature: "run(ctx, req{thread, prompt, sections[{target, origin, text}]}) -> str"},
	{Name: PointChatContext, Keyword: "chat_contexts", Title: "Chat context entries", Tiers: tierAppend,
		Eval: perCall, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, req{thread, turn}) -> str | list[str] | None"},
	{Name: PointThreadContext, Keyword: "thread_contexts", Title: "Thread prompt context", Tiers: tierAppend,
		Eval: captured, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, req{thread, mode}) -> str | None"},
	{Name: PointContextTransform, Keyword: "context_transforms", Title: "Pre-send context transform", Tiers: tierAppend | TierReplace,
		Eval: perCall, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, req{thread, purpose, inputs{tools}}) -> str | None",
		Targets:   []Target{{Name: TargetMemory, Order: orderMemory, NoneGivesUp: true, Doc: "the host's memory provider"}}},
	{Name: PointChatMiddleware, Keyword: "chat_middlewares", Title: "Chat middleware", Tiers: tierAppend | TierReplace,
		Eval: captured, Combine: combineFold, Failure: orderedFold,
		Signature: "run(ctx, req{thread, purpose, items[{id, role, text}]}) -> req | None",
		Targets: []Target{
			{Name: targetHistoryTrim, Order: orderHistoryTrim, Doc: "trims old turns to the context window"},
			{Name: targetPromptCache, Order: orderPromptCache, Doc: "marks prompt-cache breakpoints"},
		}},
	{Name: PointDispatchPolicy, Keyword: "dispatch_policies", Title: "Dispatch stage: policy", Tiers: tierAppend | TierReplace,
		Eval: perCall, Combine: collect, Failure: authoritative,
		Signature: "run(ctx, call{thread, id, name, arguments, risk}) -> None | str (the reason to deny)",
		Targets:   []Target{{Name: TargetPolicy, Order: orderPolicy, Doc: "the host's tool policy"}}},
	{Name: PointDispatchApproval, Keyword: "dispatch_approvals", Title: "Dispatch stage: approval", Tiers: tierAppend | TierReplace,
		Eval: perCall, Combine: first, Failure: authoritative,
		Signature: "run(ctx, req{thread, id, name, arguments, risk, prompt}) -> None | {approved, reason}",
		Targets:   []Target{{Name: TargetApproval, Order: orderApproval, Doc: "the host's approval prompt"}}},
	{Name: PointDispatchRecorder, Keyword: "dispatch_recorders", Title: "Dispatch stage: recorder", Tiers: tierAppend | TierReplace,
		Eval: perCall, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, rec{thread, call, result}) -> None",
		Targets:   []Target{{Name: TargetRecorder, Order: orderRecorder, Doc: "the host's transcript recorder"}}},
	{Name: PointDispatchNormalizer, Keyword: "dispatch_normalizers", Title: "Dispatch stage: normalizer", Tiers: tierAppend | TierReplace,
		Eval: perCall, Combine: combineFold, Failure: authoritative,
		Signature: "run(ctx, rec{thread, call, result}) -> result | None",
		Targets:   []Target{{Name: TargetNormalizer, Order: orderNormalizer, Doc: "the host's result normalisation"}}},
	{Name: PointThreadObserver, Keyword: "thread_observers", Title: "Thread lifecycle", Tiers: tierAppend,
		Eval: perCall, Combine: collect, Failure: fanOut, Registers: true,
		Signature: "run(ctx, ev{event: started | forked | ended, thread, parent}) -> None"},
	{Name: PointTurnObserver, Keyword: "turn_observers", Title: "Turn lifecycle", Tiers: tierAppend,
		Eval: perCall, Combine: collect, Failure: fanOut, Registers: true,
		Signature: "run(ctx, ev{event: started | finished, thread, turn, stop_reason}) -> None"},
	{Name: PointThreadSignal, Keyword: "thread_signals", Title: "Thread runtime signals", Tiers: tierAppend,
		Eval: perCall, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, req{thread}) -> str | list[str] | None"},
	{Name: PointToolRestriction, Keyword: "tool_restrictions", Title: "Tool restrictions", Tiers: tierAppend,
		Eval: captured, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, req{thread, mode, tools[names]}) -> list[str] (names to withhold) | None"},
	{Name: PointCompactionSummary, Keyword: "compaction_summarizers", Title: "Compaction summary", Tiers: TierReplace,
		Eval: perCall, Combine: collect, Failure: authoritative,
		Signature: "run(ctx, req{thread, prompt, body}) -> str | None",
		Targets:   []Target{{Name: TargetCompactionSummary, Order: orderCompactionSummary, Doc: "the host's summarizer"}}},
	{Name: PointCompactablePolicy, Keyword: "compactable_policies", Title: "Compactable tool policy", Tiers: tierAppend | TierReplace,
		Eval: perCall, Combine: first, Failure: fanOut,
		Signature: "run(ctx, req{thread, tool}) -> bool | None",
		Targets:   []Target{{Name: TargetCompactable, Order: orderCompactable, Doc: "the host's compactable list"}}},
	{Name: PointSubagentRuntime, Keyword: "subagent_runtimes", Title: "Subagent runtime", Tiers: tierAppend,
		Eval: perCall, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, req{thread}) -> {name, description, instructions} | list | None"},
	{Name: PointTraceSink, Keyword: "trace_sinks", Title: "Trace sink", Tiers: tierAppend,
		Eval: perCall, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, ev{thread, name, attributes}) -> None"},
	{Name: PointCommitMessage, Keyword: "commit_message_suggesters", Title: "Commit-message suggester", Tiers: TierReplace,
		Eval: perCall, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, req{thread, diff}) -> str | None",
		Targets:   []Target{{Name: TargetCommitMessage, Order: orderCommitMessage, Doc: "the host's commit-message suggester"}}},
	{Name: PointWelcome, Keyword: "welcome_suggesters", Title: "Welcome suggester", Tiers: TierReplace,
		Eval: perCall, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, req{workspace}) -> list[str] | None",
		Targets:   []Target{{Name: TargetWelcome, Order: orderWelcome, Doc: "the host's welcome suggestions"}}},
	{Name: PointToolProvider, Keyword: "tool_providers", Title: "Tools per planning", Tiers: tierAppend,
		Eval: perPlanning, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, req{catalog, thread, mode, workspace}) -> list[tool(...)] | None"},
	// What a plugin publishes to MCP clients as resources (docs/mcp.md):
	// asked with op "list" for its resources and templates, with op "read"
	// for the contents of one URI (None: not this entry's).
	{Name: pointResourcePublisher, Keyword: "resource_publishers", Title: "MCP resources", Tiers: tierAppend,
		Eval: perCall, Combine: collect, Failure: fanOut,
		Signature: "run(ctx, req{op, uri}) -> list[dict] | dict | None"},
}

var pointIndex = func() map[PointName]*Point {
	m := make(map[PointName]*Point, len(Points))
	for i := range Points {
		m[Points[i].Name] = &Points[i]
	}
	return m
}()

// LookupPoint returns the table row of name, or nil.
func LookupPoint(name PointName) *Point { return pointIndex[name] }

// Target returns the point's named default, or nil.
func (p *Point) Target(name string) *Target {
	for i := range p.Targets {
		if p.Targets[i].Name == name {
			return &p.Targets[i]
		}
	}
	return nil
}

// TargetNames lists the point's named defaults.
func (p *Point) TargetNames() []string {
	names := make([]string, len(p.Targets))
	for i, t := range p.Targets {
		names[i] = t.Name
	}
	return names
}

// PointCall is what one entry of a point receives: the thread it runs for
// ("" when none) and the point's input, a JSON-like value (map[string]any,
// []any, string, bool, json.Number or float64, nil).
type PointCall struct {
	Point  PointName
	Thread string
	Input  any
}

// PointFunc runs one entry. It returns a JSON-like value, or nil for
// Starlark None. An expected failure is a *ToolError (error(code, message)
// in Starlark); any other error is a raised failure. It must be safe for
// concurrent use.
type PointFunc func(ctx context.Context, call PointCall) (any, error)

// PointEntry is one contribution to a point: an appended entry (Replace
// empty), a replacement of a named default, or — on a tier C point — a
// takeover.
type PointEntry struct {
	Point   PointName `json:"point"`
	Order   int       `json:"order,omitempty"`
	Replace string    `json:"replace,omitempty"` // a target of the point, or ""
	Scope   Scope     `json:"scope,omitempty"`   // ScopeWorkspace (the default) or ScopeThread
	Thread  string    `json:"thread,omitempty"`  // the thread of a ScopeThread entry
	Pos     Pos       `json:"pos"`
	Run     PointFunc `json:"-"`
}

// CheckPointEntry checks e against its point's row (DC1, DC11): the point
// exists and is not served by its own kind, replace names one of its targets
// and is allowed only on tier B points, a B-only point needs replace, order
// stays within OrderFirst..OrderLast, and thread scope needs a thread —
// entries of contribute() have none (static is true). Its error says why e
// is invalid, phrased to follow "<point> entry"; nil when e is valid.
func CheckPointEntry(e PointEntry, static bool) error {
	p := LookupPoint(e.Point)
	switch {
	case p == nil:
		return errors.New("names no contribution point")
	case p.Kind:
		return errors.New("is served by " + string(p.Name) + "(...) in contribute(" + p.Keyword + " = [...])")
	case e.Replace != "" && p.Tiers&TierReplace == 0:
		return errors.New("sets replace, but " + string(p.Name) + " has no named defaults to replace (tiers " + p.Tiers.String() + ")")
	case e.Replace != "" && p.Target(e.Replace) == nil:
		return errors.New("replaces " + quote(e.Replace) + ", which is not a default of " + string(p.Name) + "; its defaults are " + strings.Join(p.TargetNames(), ", "))
	case e.Replace == "" && p.Tiers == TierReplace:
		return errors.New("needs replace = one of " + strings.Join(p.TargetNames(), ", ") + ": " + string(p.Name) + " only replaces its default (tier B)")
	case e.Order < OrderFirst || e.Order > OrderLast:
		return errors.New("has order " + strconv.Itoa(e.Order) + ", outside ORDER_FIRST..ORDER_LAST")
	case e.Scope != ScopeWorkspace && e.Scope != ScopeThread:
		return errors.New("has scope " + quote(string(e.Scope)) + "; want SCOPE_WORKSPACE or SCOPE_THREAD")
	case e.Scope == ScopeThread && static:
		return errors.New("has thread scope, but contribute() runs before any thread exists; add it with ctx.contributions.add in a thread_observer or turn_observer")
	case e.Scope == ScopeThread && e.Thread == "":
		return errors.New("has thread scope but no thread")
	}
	return nil
}

func quote(s string) string { return `"` + s + `"` }

// AddPoint validates a static entry against its point's row and stages it
// (DC1, DC11); an invalid entry is left out with a PointEntryInvalid
// diagnostic at its constructor call.
func (s *Staging) AddPoint(e PointEntry) {
	if e.Scope == "" {
		e.Scope = ScopeWorkspace
	}
	if err := CheckPointEntry(e, true); err != nil {
		s.Report(PointEntryInvalid, e.Pos, "%s entry %v; it is left out", e.Point, err)
		return
	}
	s.set.Points = append(s.set.Points, e)
}
