package starhost

import (
	"context"
	"encoding/json"

	"github.com/crystal-star/crystal-star/contrib"
)

// The tool types an embedder sees. They are starhost's own, so one import
// suffices; the registry below keeps its own and convert_tools.go maps
// between the two at this boundary.

// Catalog is the set of tool catalogs a tool is listed in (CC4): the plan
// catalog (tools for planning), the work catalog, or both.
type Catalog uint8

// The catalogs. PlanAndWork lists a tool in both.
const (
	Plan Catalog = 1 << iota
	Work
	PlanAndWork = Plan | Work
)

// CatalogFor returns the catalog a session in mode (Facts.Mode) offers the
// model, and the one Dispatch checks calls against: Plan in plan mode
// (PlanMode), Work otherwise. A host offers
// Tools(ctx, thread, CatalogFor(mode)), so that a tool the model was never
// offered (a plan-only tool in work mode) is unknown_tool when called.
func CatalogFor(mode string) Catalog {
	if mode == PlanMode {
		return Plan
	}
	return Work
}

// String returns the catalog's Starlark spelling: "plan", "work" or
// "plan_and_work" ("" for any other value).
func (c Catalog) String() string { return contrib.Catalog(c).String() }

// ToolInfo describes one tool of a snapshot (DC4): a copy of its
// definition and where its calls go. Its JSON is the shape of
// `crystal-star tools --json`.
type ToolInfo struct {
	// Name is the model-facing name, unique in a snapshot.
	Name string `json:"name"`
	// Plugin is the plugin that contributes the tool; "" for an external
	// tool.
	Plugin string `json:"plugin"`
	// Generation is the plugin generation calls currently resolve to.
	Generation string `json:"-"`
	// ToolSet is the external tool set of an external tool, else "".
	ToolSet string `json:"tool_set,omitempty"`
	// Catalogs is the tool's catalogs in their Starlark spelling
	// (Catalog.String).
	Catalogs string `json:"catalogs"`
	// Description is what the model reads about the tool.
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments as declared.
	Parameters json.RawMessage `json:"parameters"`
	// ReadOnly is the read_only policy hint (MC4).
	ReadOnly bool `json:"read_only"`
	// Namespace and CanonicalName (namespace.name) are what the host shows;
	// Name stays the model-facing name. A plugin tool's namespace defaults
	// to its plugin id, an external tool's to its tool set (MC4).
	Namespace     string `json:"namespace"`
	CanonicalName string `json:"canonical_name"`
	// RequiresApproval is effective: declared, else !ReadOnly (MC4).
	RequiresApproval bool `json:"requires_approval"`
	// Multimodal: the tool may return content parts (MC1).
	Multimodal bool `json:"multimodal"`
	// OutputSchema is the tool's output_schema, or nil.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Remote: the tool is rpc-eligible (remote = True, DotCraft's
	// [ToolRpc]); a host may run it on an executor (docs/remote.md).
	Remote bool `json:"remote"`
}

// ToolResult is what a tool call returns: text, structured JSON, content
// parts or an error. Exactly one outcome holds: when Error is set the call
// failed and the other fields are empty; otherwise Data is set for a
// structured result, Parts for a multimodal tool's content (MC1, with Text
// holding its text parts joined by newlines), and Text is the result
// otherwise.
type ToolResult struct {
	// Text is the result text (empty for a structured result).
	Text string `json:"text,omitempty"`
	// Data is the JSON of a structured result, or nil.
	Data json.RawMessage `json:"data,omitempty"`
	// Parts are a multimodal result's content parts, in order.
	Parts []ContentPart `json:"parts,omitempty"`
	// Error is the failure of a failed call, with its stable code; nil on
	// success.
	Error *ToolError `json:"error,omitempty"`
}

// OK reports whether the call succeeded (Error is nil).
func (r ToolResult) OK() bool { return r.Error == nil }

// Err returns the call's failure as an error, or nil when it succeeded, so
// a host branches with errors.Is on the one vocabulary (Code):
//
//	if errors.Is(res.Err(), starhost.ErrUnknownTool) { … }
func (r ToolResult) Err() error {
	if r.Error == nil {
		return nil // not a typed nil pointer in a non-nil interface
	}
	return r.Error
}

// ToolError is a failed tool call (DC6): a stable Code — one of the Err*
// codes the host produces, or the code of a plugin's error(code, message),
// which can never be one of the host's (such an error() fails the call as
// ErrToolFailed) — and an English message saying what happened and where.
//
// Cause says whose fault a tool_failed call was, when the host stopped it
// (a budget, a limit, a dead worker); empty when the tool failed of its
// own error. A host branches on it instead of parsing Message: Cause
// documents, constant by constant, which are worth a retry.
type ToolError struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Cause   Cause  `json:"cause,omitempty"`
}

// Cause is why the host stopped a failed call (ToolError.Cause), so a host
// can tell "this tool is broken" from "the call was cancelled with
// another" without reading the message. A collateral or worker_failed
// call's message never points at a line of its own code.
type Cause string

// The causes. Only the host sets one; a plugin's error(code, message) has
// none (issue 24, point 10; docs/embedding.md, "Whose fault it was").
const (
	// CauseStepBudget: the call ran out of its own step budget. Its own
	// doing: a retry with the same arguments fails the same way.
	CauseStepBudget Cause = "step_budget"
	// CauseMemoryLimit: the call's own allocation was refused, or it grew
	// the heap past memory_limit (alone, or seen growing it). Its own
	// doing: not worth a retry with the same arguments.
	CauseMemoryLimit Cause = "memory_limit"
	// CauseCallbackTimeout: the call ran past callback_timeout. Its own
	// doing; worth a retry only when what it waited on was slow.
	CauseCallbackTimeout Cause = "callback_timeout"
	// CauseWorkerFailed: the worker process running the call (process
	// isolation) died while the call ran — a crash, garbage on its
	// channel, another call's timeout, or a memory kill while several
	// calls ran — and the plugin is faulted. Not shown to be this call's
	// doing: worth a retry once the plugin is reloaded (until then calls
	// answer tool_unavailable).
	CauseWorkerFailed Cause = "worker_failed"
	// CauseCollateral: the call was cancelled because the heap it shares
	// with other runs (in the host process, or in its worker) grew past
	// memory_limit while another run was growing it. Not its doing: worth
	// a retry at once.
	CauseCollateral Cause = "collateral"
)

// Error returns "code: message".
func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Message }

// Is reports whether target is e's Code (or a *ToolError with the same
// code), so errors.Is(res.Err(), starhost.ErrToolUnavailable) holds for
// every failure with that code, whatever its message.
func (e *ToolError) Is(target error) bool {
	switch t := target.(type) {
	case Code:
		return e.Code == t
	case *ToolError:
		return t != nil && e.Code == t.Code
	}
	return false
}

// ExternalTool is a tool the embedder brings from outside the plugin
// system (CC6): Options.External, or a tool set's tools (SetToolSet). It is
// listed after the plugin tools and called through the same snapshot and
// pipeline.
type ExternalTool struct {
	// Name is the model-facing name; a plugin tool of the same name wins
	// and the external one is left out with a note.
	Name string
	// ToolSet names the set the tool belongs to ("" for none).
	ToolSet string
	// Description is what the model reads about the tool.
	Description string
	// Catalogs are the catalogs the tool is listed in; zero lists it in
	// none.
	Catalogs Catalog
	// Parameters is the JSON Schema of the arguments; calls are validated
	// against it before Run.
	Parameters json.RawMessage
	// ReadOnly and RequiresApproval are policy hints (MC4), as on plugin
	// tools; nil RequiresApproval means !ReadOnly.
	ReadOnly         bool
	RequiresApproval *bool
	// Multimodal: the tool may return content parts (MC1), as MCP tools do.
	Multimodal bool
	// Run runs one call. args are the decoded, validated JSON arguments
	// (objects are map[string]any, numbers json.Number). It must be safe
	// for concurrent use and return failures as a ToolResult with Error,
	// never panic (a panic is recovered into tool_failed). A result with
	// Parts and no Text gets the text parts joined as its Text. Unlike a
	// plugin, Run may return the host's own codes (it is the embedder's
	// code): return ErrToolUnavailable only when nothing ran.
	Run func(ctx context.Context, args any) ToolResult
}

// ToolSnapshot is a frozen, ordered catalog of tools (DC4, DC12), taken by
// Host.Tools. It holds only names: every Invoke re-resolves the tool against
// the plugins serving now, following a reload to the new generation. Safe
// for concurrent use.
type ToolSnapshot struct {
	snap    *contrib.ToolSnapshot
	session *Session // the session it was planned for: Invoke serves it
}

// List returns the tools, in catalog order (CC6).
func (s *ToolSnapshot) List() []ToolInfo { return toolInfos(s.snap.List()) }

// Len returns the number of tools in the snapshot.
func (s *ToolSnapshot) Len() int { return s.snap.Len() }

// Invoke calls the tool name bare: no hooks, no policy, no approval — the
// one difference from Host.Dispatch, which runs the same call through the
// host's hooks, policy and approval. The arguments (empty or JSON null mean
// {}, the Arguments rule) are validated against the tool's schema first
// (invalid_arguments naming each failing path; unknown_tool for a name the
// snapshot does not list); then the call runs on the plugin's serving
// generation — tool_unavailable when the plugin stopped or no longer offers
// the tool. A context already done yields cancelled without running
// anything, one that ends during the call cancelled; a call stopped because
// its generation retired past the cleanup timeout is tool_interrupted. A
// panic below is recovered into tool_failed. The call serves the session
// the snapshot was planned for (Thread.Tools): the tool's ctx carries its
// facts. Safe for concurrent use.
func (s *ToolSnapshot) Invoke(ctx context.Context, name string, args json.RawMessage) ToolResult {
	if s.session != nil && contrib.SessionFrom(ctx) == nil {
		// The call's own context carries the session (no context made
		// for it here, issue 26 point 4).
		return fromResult(s.snap.InvokeIn(ctx, s.session.scope, name, args))
	}
	return fromResult(s.snap.Invoke(ctx, name, args))
}
