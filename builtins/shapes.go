package builtins

import (
	"slices"
	"strings"
	"sync"

	"github.com/crystal-star/crystal-star/contrib"
)

// This file describes, as data, what a plugin module can call and what each
// callback receives: the constructors' keywords, the callbacks' parameters
// and evident return values, and the members of ctx per callback kind. The
// static checks of `crystal-star check` and the language server read it; the
// point constructors are generated from contrib.Points here as in points.go,
// and a test holds the hand-written constructors and ctx values to it.

// ValueKind is what a constructor parameter accepts, as far as a literal
// argument shows it.
type ValueKind string

// The value kinds. A "… or None" kind also accepts None.
const (
	KindString         ValueKind = "a string"
	KindStringOrNone   ValueKind = "a string or None"
	KindBool           ValueKind = "a bool"
	KindBoolOrNone     ValueKind = "a bool or None"
	KindInt            ValueKind = "an int"
	KindList           ValueKind = "a list"
	KindDict           ValueKind = "a dict"
	KindDictOrNone     ValueKind = "a dict or None"
	KindCallable       ValueKind = "a function"
	KindCallableOrNone ValueKind = "a function or None"
	KindEntries        ValueKind = "a list of entries"
)

// Param is one keyword of a constructor (or of contribute).
type Param struct {
	Name     string
	Required bool
	Kind     ValueKind
	// Values, when set, is the closed set of strings the parameter takes
	// (catalogs, hook events, targets, scopes).
	Values []string
	// Callback is the callback a function argument becomes, when Kind is
	// a function kind.
	Callback *Callback
	// Entry is the constructor whose entries a KindEntries list holds.
	Entry string
	Doc   string
}

// CtxKind says which ctx a callback receives: its extra members differ.
type CtxKind string

// The ctx kinds. CtxNone: the callback gets no ctx (a client factory's
// create).
const (
	CtxTool        CtxKind = "tool"
	CtxCommand     CtxKind = "command"
	CtxPlaceholder CtxKind = "placeholder"
	CtxPoint       CtxKind = "point" // point entries and hooks: ctx.thread
	CtxObserver    CtxKind = "observer"
	CtxAttach      CtxKind = "attach" // attach callbacks, timers, classifiers
	CtxNone        CtxKind = "none"
)

// ReturnClass is the evident type of a returned expression.
type ReturnClass string

// The classes of evident return values.
const (
	ReturnNone     ReturnClass = "None"
	ReturnString   ReturnClass = "a string"
	ReturnInt      ReturnClass = "an int"
	ReturnFloat    ReturnClass = "a float"
	ReturnBool     ReturnClass = "a bool"
	ReturnDict     ReturnClass = "a dict"
	ReturnList     ReturnClass = "a list"
	ReturnTuple    ReturnClass = "a tuple"
	ReturnFunction ReturnClass = "a function"
	// ReturnParts: image(...), audio(...), resource(...), or a list or
	// tuple display holding one (content parts, MC1).
	ReturnParts ReturnClass = "content parts"
)

// Callback is the shape of one kind of callback.
type Callback struct {
	// What names it in messages, e.g. "a tool's run".
	What string
	// Params are what the host passes, by position, e.g. ctx, args.
	Params []string
	Ctx    CtxKind
	// Returns says what the host wants back, for messages and hover.
	Returns string
	// Reject lists the evident return values the host refuses.
	Reject []ReturnClass
}

// Signature is one predeclared constructor: its keywords in positional
// order (each may also be given by position).
type Signature struct {
	Name string
	// Keyword is the contribute() list that takes its entries.
	Keyword string
	Params  []Param
	Doc     string
}

// Param returns the parameter called name, or nil.
func (s *Signature) Param(name string) *Param {
	for i := range s.Params {
		if s.Params[i].Name == name {
			return &s.Params[i]
		}
	}
	return nil
}

// ParamNames lists the signature's keywords.
func (s *Signature) ParamNames() []string {
	names := make([]string, len(s.Params))
	for i, p := range s.Params {
		names[i] = p.Name
	}
	return names
}

var notCallable = []ReturnClass{ReturnFunction}
var textOnly = []ReturnClass{ReturnDict, ReturnList, ReturnTuple, ReturnInt, ReturnFloat, ReturnBool, ReturnFunction, ReturnParts}

// The callbacks of the hand-written kinds.
var (
	toolRun = &Callback{What: "a tool's run", Params: []string{"ctx", "args"}, Ctx: CtxTool,
		Returns: "a string (text), a dict or list (JSON), error(code, message) or None", Reject: notCallable}
	commandRun = &Callback{What: "a command's run", Params: []string{"ctx", "inv"}, Ctx: CtxCommand,
		Returns: "a string (this turn's input), content parts (image, resource, or a list mixing them with strings) or None (pass)",
		// A command may return content parts: an MCP prompt's messages.
		Reject: []ReturnClass{ReturnDict, ReturnList, ReturnTuple, ReturnInt, ReturnFloat, ReturnBool, ReturnFunction}}
	placeholderResolve = &Callback{What: "a placeholder's resolve", Params: []string{"ctx"}, Ctx: CtxPlaceholder,
		Returns: "a string", Reject: append([]ReturnClass{ReturnNone}, textOnly...)}
	classify = &Callback{What: "a classifier's classify", Params: []string{"ctx", "tool", "args"}, Ctx: CtxAttach,
		Returns: `{"risk": ..., "permission": ...} or None`,
		Reject:  []ReturnClass{ReturnString, ReturnList, ReturnTuple, ReturnInt, ReturnFloat, ReturnBool, ReturnFunction, ReturnParts}}
	create = &Callback{What: "a client factory's create", Params: []string{"request"}, Ctx: CtxNone,
		Returns: "struct(encode = fn, decode = fn) or error(\"not_supported\", ...)",
		Reject:  []ReturnClass{ReturnNone, ReturnString, ReturnList, ReturnTuple, ReturnInt, ReturnFloat, ReturnBool, ReturnFunction, ReturnParts}}
	timerRun = &Callback{What: "a timer's run", Params: []string{"ctx"}, Ctx: CtxAttach, Returns: "anything (ignored)"}
	hookRun  = &Callback{What: "a hook's run", Params: []string{"ctx", "payload"}, Ctx: CtxPoint,
		Returns: "None (no change) or a dict of the fields it replaces",
		Reject:  []ReturnClass{ReturnString, ReturnList, ReturnTuple, ReturnInt, ReturnFloat, ReturnBool, ReturnFunction, ReturnParts}}
)

// attachParams are what each attach stage passes after ctx (attachPreparers).
var attachParams = map[contrib.AttachStage][]string{
	contrib.AttachDataDirs: {"global", "project"},
	contrib.AttachStatus:   {"status"},
}

func catalogNames() []string { return []string{"plan", "work", "plan_and_work"} }

// Signatures returns every constructor a plugin module can call, and
// contribute itself first. The list is built once and shared; callers must
// not modify it.
func Signatures() []Signature { return signatures() }

// LookupSignature returns the constructor called name, or nil.
func LookupSignature(name string) *Signature {
	sigs := signatures()
	for i := range sigs {
		if sigs[i].Name == name {
			return &sigs[i]
		}
	}
	return nil
}

var signatures = sync.OnceValue(func() []Signature {
	str := func(name string, required bool, doc string) Param {
		return Param{Name: name, Required: required, Kind: KindString, Doc: doc}
	}
	sigs := []Signature{
		{Name: "tool", Keyword: "tools", Doc: "A tool the model can call (CC4, CC5).", Params: []Param{
			str("name", true, "the model-facing name: a letter, then letters, digits, _ or -; 1–64 characters"),
			{Name: "run", Required: true, Kind: KindCallable, Callback: toolRun, Doc: "run(ctx, args): args is the decoded JSON arguments"},
			str("description", false, "what the model reads about the tool"),
			{Name: "parameters", Kind: KindDictOrNone, Doc: "the JSON Schema of the arguments"},
			{Name: "catalogs", Kind: KindStringOrNone, Values: catalogNames(), Doc: `"plan", "work" or "plan_and_work"`},
			{Name: "read_only", Kind: KindBool, Doc: "a policy hint: the tool changes nothing"},
			str("namespace", false, "prefixes the canonical name ns.name the host shows; the model-facing name is unchanged (MC4)"),
			{Name: "requires_approval", Kind: KindBoolOrNone, Doc: "True asks for approval even where the host would allow; None leaves it to the host (MC4)"},
			{Name: "multimodal", Kind: KindBool, Doc: "the tool may return content parts: image, audio, resource (MC1)"},
			{Name: "output_schema", Kind: KindDictOrNone, Doc: "the JSON Schema (an object) every result must match; advertised over MCP"},
			{Name: "remote", Kind: KindBool, Doc: "rpc-eligible (DotCraft's [ToolRpc]): a host may run the tool on an executor; it then gets only data, store and env (docs/remote.md)"},
		}},
		{Name: "command", Keyword: "commands", Doc: "A /slash command (CC11).", Params: []Param{
			str("name", true, "the verb, without the slash"),
			{Name: "run", Required: true, Kind: KindCallable, Callback: commandRun, Doc: "run(ctx, inv): inv.name, inv.args"},
			{Name: "aliases", Kind: KindList, Doc: "other verbs for the same command"},
			str("description", false, "shown by /help"),
			{Name: "order", Kind: KindInt, Doc: "where the command stands among the plugin's"},
			str("argument_hint", false, "a short usage of the arguments, listed with the command (MC6)"),
		}},
		{Name: "placeholder", Keyword: "placeholders", Doc: "A {{name}} template placeholder (CC12, CC13).", Params: []Param{
			str("name", true, "a letter, then letters, digits or _; matched case-insensitively"),
			{Name: "resolve", Required: true, Kind: KindCallable, Callback: placeholderResolve, Doc: "resolve(ctx) returns the text; ctx.site says where"},
		}},
		{Name: "status_field", Keyword: "status_fields", Doc: "A status-line field the plugin may set (CC15).", Params: []Param{
			str("name", true, "a letter, then letters, digits or single hyphens; at most 32 characters"),
			str("description", false, "shown by /statusline, at most 80 characters"),
		}},
		{Name: "classifier", Keyword: "classifiers", Doc: "Classifies tools the host does not know (CC10).", Params: []Param{
			{Name: "classify", Required: true, Kind: KindCallable, Callback: classify, Doc: "classify(ctx, tool, args)"},
		}},
		{Name: "client_factory", Keyword: "client_factories", Doc: "Builds model clients for a protocol the host lacks (CC8, CC9).", Params: []Param{
			str("protocol", true, "the protocol token operators put in providers.json"),
			{Name: "create", Required: true, Kind: KindCallable, Callback: create, Doc: "create(request) returns a client"},
			{Name: "create_multimodal", Kind: KindCallableOrNone, Callback: create, Doc: "create for models that take images"},
		}},
		{Name: "timer", Keyword: "timers", Doc: "A plugin-owned timer (CC18).", Params: []Param{
			str("every", true, `a duration such as "5s" or "500ms", at least 100ms`),
			{Name: "run", Required: true, Kind: KindCallable, Callback: timerRun, Doc: "run(ctx)"},
		}},
		{Name: "hook", Keyword: "hooks", Doc: "A hook on a host event (HK1, HK2).", Params: []Param{
			{Name: "event", Required: true, Kind: KindString, Values: contrib.HookEventNames(false), Doc: "the event"},
			{Name: "run", Required: true, Kind: KindCallable, Callback: hookRun, Doc: "run(ctx, payload)"},
		}},
		{Name: "raw_hook", Keyword: "raw_hooks", Doc: "A privileged raw hook (HK3).", Params: []Param{
			{Name: "event", Required: true, Kind: KindString, Values: contrib.HookEventNames(true), Doc: "the raw event"},
			{Name: "run", Required: true, Kind: KindCallable, Callback: hookRun, Doc: "run(ctx, payload)"},
		}},
	}
	for i := range contrib.Points {
		if p := &contrib.Points[i]; !p.Kind {
			sigs = append(sigs, pointSignature(p))
		}
	}
	return append([]Signature{contributeSignature()}, sigs...)
})

// pointSignature is the constructor of a point, as pointConstructor builds
// it: run, order, replace (tier B points only), scope.
func pointSignature(p *contrib.Point) Signature {
	ctx := CtxPoint
	if p.Registers {
		ctx = CtxObserver
	}
	run := &Callback{What: "a " + string(p.Name) + "'s run", Params: []string{"ctx", "req"}, Ctx: ctx,
		Returns: p.Signature[strings.Index(p.Signature, "->")+3:], Reject: notCallable}
	params := []Param{
		{Name: "run", Required: true, Kind: KindCallable, Callback: run, Doc: p.Signature},
		{Name: "order", Kind: KindInt, Doc: "where the entry stands: ORDER_FIRST..ORDER_LAST"},
	}
	if p.Tiers&contrib.TierReplace != 0 {
		params = append(params, Param{Name: "replace", Kind: KindStringOrNone, Values: p.TargetNames(), Doc: "the named default it replaces"})
	}
	params = append(params, Param{Name: "scope", Kind: KindStringOrNone,
		Values: []string{string(contrib.ScopeWorkspace), string(contrib.ScopeThread)}, Doc: "SCOPE_WORKSPACE or SCOPE_THREAD"})
	return Signature{Name: string(p.Name), Keyword: p.Keyword, Params: params,
		Doc: p.Title + " (" + p.Tiers.String() + "; " + p.Eval.String() + "; " + p.Failure.String() + ")."}
}

// contributeSignature is contribute(): a list keyword per kind, the attach
// callbacks and exports.
func contributeSignature() Signature {
	var params []Param
	for _, l := range contributeLists {
		params = append(params, Param{Name: l.keyword, Kind: KindEntries, Entry: l.kind, Doc: "a list of " + l.kind + "(...) entries"})
	}
	for _, stage := range contrib.AttachStages {
		cb := &Callback{What: string(stage), Params: append([]string{"ctx"}, attachParams[stage]...), Ctx: CtxAttach, Returns: "anything (ignored)"}
		params = append(params, Param{Name: string(stage), Kind: KindCallableOrNone, Callback: cb,
			Doc: string(stage) + "(" + strings.Join(cb.Params, ", ") + ")"})
	}
	params = append(params, Param{Name: "exports", Kind: KindDictOrNone, Doc: "services other plugins may deps.require (DC13)"})
	return Signature{Name: "contribute", Params: params, Doc: "Registers the plugin's contributions; call it once at the top level of the entry file (CC2)."}
}

// CtxMember is one attribute of ctx (or of a value reached from it).
type CtxMember struct {
	Name string
	// Kinds lists the callbacks whose ctx has it; nil means every one.
	Kinds []CtxKind
	// Capability is the plugin.toml capability it needs, or "".
	Capability string
	Doc        string
	// Members are its own attributes, when they are a closed set.
	Members []CtxMember
}

// Member returns the member called name, or nil.
func (m *CtxMember) Member(name string) *CtxMember { return findMember(m.Members, name) }

func findMember(ms []CtxMember, name string) *CtxMember {
	for i := range ms {
		if ms[i].Name == name {
			return &ms[i]
		}
	}
	return nil
}

// Has reports whether a ctx of kind k has m.
func (m *CtxMember) Has(k CtxKind) bool { return m.Kinds == nil || slices.Contains(m.Kinds, k) }

func leaves(doc string, names ...string) []CtxMember {
	out := make([]CtxMember, len(names))
	for i, n := range names {
		out[i] = CtxMember{Name: n, Doc: doc}
	}
	return out
}

// CtxMembers returns the attributes of ctx, every kind's, in alphabetical
// order. The list is shared; callers must not modify it.
func CtxMembers() []CtxMember { return ctxMembers() }

// LookupCtxMember returns the ctx attribute called name, or nil.
func LookupCtxMember(name string) *CtxMember { return findMember(ctxMembers(), name) }

var ctxMembers = sync.OnceValue(func() []CtxMember {
	client := leaves("a model client member", (&clientValue{}).AttrNames()...)
	dir := leaves("a confined data-directory method", (&dataDir{}).AttrNames()...)
	review := append(slices.Clone(modelAttrs), "independent")
	slices.Sort(review)
	ms := []CtxMember{
		{Name: "plugin", Doc: "the plugin id"},
		{Name: "generation", Doc: "the opaque id of the running generation; it changes on every reload"},
		{Name: "workspace", Doc: "the workspace directory"},
		{Name: "session_id", Doc: "the session id"},
		{Name: "mode", Doc: "the mode (the CLI sets work)"},
		{Name: "approval_mode", Doc: "the approval mode"},
		{Name: "provider", Doc: "the model provider"},
		{Name: "model", Doc: "the model name"},
		{Name: "out", Kinds: []CtxKind{CtxCommand}, Doc: "a command's output: write(text) and fail(text) become session notes",
			Members: leaves("writes a session note", "fail", "write")},
		{Name: "site", Kinds: []CtxKind{CtxPlaceholder}, Doc: "where the template is bound: prompt, attachment, review, compaction or image_description"},
		{Name: "thread", Kinds: []CtxKind{CtxPoint, CtxObserver}, Doc: "the thread the call is for (\"\" when none)"},
		{Name: "contributions", Kinds: []CtxKind{CtxObserver}, Doc: "add(entry) registers a point entry for ctx.thread; release(id) releases one",
			Members: leaves("thread-scoped entries", "add", "release")},
		{Name: "env", Doc: "the environment (CC19): plugins, tool_sets, external_tools, skills",
			Members: leaves("a read-only list of the environment", "external_tools", "plugins", "skills", "tool_sets")},
		{Name: "ask", Kinds: []CtxKind{CtxTool, CtxCommand}, Doc: "ask(message, schema = None) asks the person (MCP elicitation, the dev console's prompt): the answer's values as a dict, or None when declined, dismissed, past ask_timeout or nobody can answer"},
		{Name: "progress", Kinds: []CtxKind{CtxTool}, Doc: "progress(done, total = None, message = None) reports a tool's progress: notifications/progress over MCP when the client asked, else nothing"},
		{Name: "store", Doc: "a mutable map for the life of one generation: ctx.store[key], get, pop, keys",
			Members: leaves("a store method", (&store{}).AttrNames()...)},
		{Name: "status", Doc: "the generation's status sink: set(name, text), clear(name)",
			Members: leaves("updates a declared status field", "clear", "set")},
		{Name: "session", Doc: "the live session model view (CC20, CC21)", Members: leaves("a session model fact", modelAttrs...)},
		{Name: "review", Doc: "the live review model view (CC22)", Members: leaves("a review model fact", review...)},
		{Name: "models", Capability: "models", Doc: "the session and review model clients (CC24–CC27)", Members: []CtxMember{
			{Name: "session", Doc: "the session model's text client", Members: client},
			{Name: "images", Doc: "the image client, None when the model takes no images", Members: client},
			{Name: "review", Doc: "the review client when review is independent, else None", Members: client},
			{Name: "independent_review", Doc: "whether review uses its own model"},
		}},
		{Name: "data", Capability: "data", Doc: "the plugin's data directories (CC29, CC30)", Members: []CtxMember{
			{Name: "global_dir", Doc: "{home}/data/plugins/<directory>", Members: dir},
			{Name: "project_dir", Doc: "<workspace>/.crystal/data/plugins/<directory>", Members: dir},
		}},
	}
	slices.SortFunc(ms, func(a, b CtxMember) int { return strings.Compare(a.Name, b.Name) })
	return ms
})
