package contrib

import (
	"context"
	"encoding/json"
	"fmt"
)

// Catalog is the set of tool catalogs a tool is listed in (CC4).
type Catalog uint8

// The catalogs. PlanAndWork lists a tool in both.
const (
	Plan Catalog = 1 << iota
	Work
	PlanAndWork = Plan | Work
)

// ParseCatalog reads "plan", "work" or "plan_and_work"; any other string is
// an error.
func ParseCatalog(s string) (Catalog, error) {
	switch s {
	case "plan":
		return Plan, nil
	case "work":
		return Work, nil
	case "plan_and_work":
		return PlanAndWork, nil
	}
	return 0, fmt.Errorf("catalog %q is not plan, work or plan_and_work", s)
}

// String returns the catalog's Starlark spelling.
func (c Catalog) String() string {
	switch c {
	case Plan:
		return "plan"
	case Work:
		return "work"
	case PlanAndWork:
		return "plan_and_work"
	}
	return ""
}

// Source says which plugin root a plugin came from.
type Source string

// Plugin roots, by priority for overlay: project, dev, home, builtin.
const (
	SourceProject Source = "project"
	SourceDev     Source = "dev"
	SourceHome    Source = "home"
	SourceBuiltin Source = "builtin"
)

// Installed reports whether plugins of this source need a trust grant.
func (s Source) Installed() bool { return s == SourceProject || s == SourceHome || s == SourceBuiltin }

// ToolError is an expected tool failure with a stable code (DC6). Cause,
// set by the host only, says whose fault a tool_failed call was (one of
// the Cause constants); it crosses the worker channel with the result.
type ToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Cause   string `json:"cause,omitempty"`
}

// Causes of a failed call: why the host stopped it, so a caller can tell
// "this tool is broken" from "the call was cancelled with another"
// without reading the message. Only the host sets one; a plugin's
// error(code, message) has none.
const (
	// CauseStepBudget: the call ran out of its own step budget. Its own
	// doing; a retry with the same arguments fails the same way.
	CauseStepBudget = "step_budget"
	// CauseMemoryLimit: the call's own allocation was refused, or it grew
	// the heap past memory_limit while no other run shared it. Its own
	// doing; not worth a retry with the same arguments.
	CauseMemoryLimit = "memory_limit"
	// CauseCallbackTimeout: the call ran past callback_timeout. Its own
	// doing; a retry is worth it only when what it waited on was slow.
	CauseCallbackTimeout = "callback_timeout"
	// CauseWorkerFailed: the worker process running the call died (a
	// crash, another call's memory or timeout kill, garbage on its
	// channel) and the plugin is faulted. Not necessarily this call's
	// doing; worth a retry once the plugin is reloaded.
	CauseWorkerFailed = "worker_failed"
	// CauseCollateral: the call was cancelled because the heap it shares
	// with other runs grew past memory_limit and the growth could not be
	// attributed to it. Not its doing; worth a retry at once.
	CauseCollateral = "collateral"
)

// FailureWithCause is Failure with the host's cause of it.
func FailureWithCause(code, cause, message string) Result {
	return Result{Err: &ToolError{Code: code, Message: message, Cause: cause}}
}

func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// Stable tool error codes the host itself produces. A host can act on them:
// tool_unavailable, unknown_tool and invalid_arguments mean the tool never
// started (safe to retry or correct); cancelled means the caller's context
// ended, before the call (nothing ran) or during it; tool_interrupted means a
// started call was stopped because its generation retired past the cleanup
// timeout, so it may have had effects.
const (
	ErrToolUnavailable  = "tool_unavailable"
	ErrInvalidArguments = "invalid_arguments"
	ErrToolFailed       = "tool_failed"
	ErrUnknownTool      = "unknown_tool"
	ErrCancelled        = "cancelled"
	ErrToolInterrupted  = "tool_interrupted"
	// ErrInvalidOutput: the tool ran but its result is not a structured
	// value its output_schema accepts, or holds a content part that is not
	// valid (CheckPart: a malformed media type, say).
	ErrInvalidOutput = "invalid_output"
	// ErrCallDenied: the dispatch pipeline refused the call (policy,
	// classification, approval).
	ErrCallDenied = "call_denied"
)

// ReservedCode reports whether code is one the host itself produces for a
// call (the codes above, content_too_large and point_failed). A plugin's
// error(code, message) may not carry one: a host acts on these codes (a
// tool_unavailable call never started and is safe to retry), so a plugin
// must not be able to claim them for a call that ran.
func ReservedCode(code string) bool {
	switch code {
	case ErrToolUnavailable, ErrInvalidArguments, ErrToolFailed, ErrUnknownTool, ErrCancelled,
		ErrToolInterrupted, ErrInvalidOutput, ErrCallDenied, ErrContentTooLarge, ErrPointFailed:
		return true
	}
	return false
}

// Cancelled returns the cancelled result for a call whose context ended.
func Cancelled(ctx context.Context) Result {
	return Failure(ErrCancelled, "the call was cancelled: "+context.Cause(ctx).Error())
}

// Result is what a tool call returns: text, structured JSON, content parts
// or an error. When Err is nil, Data is set for structured results; Parts
// for a multimodal tool's content (MC1), with Text then holding its text
// parts joined; otherwise Text is the result.
type Result struct {
	Text  string          `json:"text,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
	Parts []Part          `json:"parts,omitempty"`
	Err   *ToolError      `json:"error,omitempty"`
}

// OK reports whether the call succeeded.
func (r Result) OK() bool { return r.Err == nil }

// Failure returns a Result carrying an error with code and message.
func Failure(code, message string) Result {
	return Result{Err: &ToolError{Code: code, Message: message}}
}

// ToolFunc runs one tool call. args is the decoded, validated JSON arguments
// (objects are map[string]any, numbers json.Number). It must be safe for
// concurrent use; it returns expected failures as a Result, never a panic.
type ToolFunc func(ctx context.Context, args any) Result

// Run calls f: a ToolFunc is the ToolRunner of the Go form.
func (f ToolFunc) Run(ctx context.Context, args any) Result { return f(ctx, args) }

// ToolRunner is a tool's implementation (Tool.Run). It follows the ToolFunc
// rules; a ToolFunc is one. A runner that takes its arguments in another
// form says so itself with an ArgsForm method (FormRunner), so the form
// travels with the function that needs it: whoever replaces a Tool's Run
// replaces its form too.
type ToolRunner interface {
	Run(ctx context.Context, args any) Result
}

// FormRunner is a ToolRunner whose arguments are decoded straight into a
// plugin language's values (issue 26, point 4): ArgsForm builds them. Run
// must still take the Go form too, which a call converted on another path
// (a Check done for Dispatch) may bring.
type FormRunner interface {
	ToolRunner
	ArgsForm() JSONBuilder
}

// WithArgsForm is run taking its arguments in form (nil: the Go form, run
// itself): a FormRunner for a Tool's Run.
func WithArgsForm(run ToolFunc, form JSONBuilder) ToolRunner {
	if form == nil {
		return run
	}
	return formFunc{run, form}
}

// formFunc is WithArgsForm's FormRunner.
type formFunc struct {
	ToolFunc
	form JSONBuilder
}

func (f formFunc) ArgsForm() JSONBuilder { return f.form }

// ArgsFormOf returns the form r takes its arguments in: nil for the Go form.
func ArgsFormOf(r ToolRunner) JSONBuilder {
	if f, ok := r.(FormRunner); ok {
		return f.ArgsForm()
	}
	return nil
}

// Tool is one tool contribution (CC4, DC4).
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Catalogs    Catalog         `json:"catalogs"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // the JSON Schema as given; "{}" when none
	ReadOnly    bool            `json:"read_only,omitempty"`  // a policy hint; never overrides host policy
	// Namespace gives the canonical name Namespace.Name (MC4); empty means
	// the plugin id.
	Namespace string `json:"namespace,omitempty"`
	// RequiresApproval is the declared hint; nil means !ReadOnly (MC4).
	RequiresApproval *bool `json:"requires_approval,omitempty"`
	// Multimodal declares that the tool may return content parts (MC1).
	Multimodal bool `json:"multimodal,omitempty"`
	// OutputSchema, when set, is the JSON Schema every result must be a
	// structured value of (invalid_output otherwise); MCP advertises it.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Remote marks the tool rpc-eligible (DC7, DotCraft's [ToolRpc]): a
	// host may route its calls to an executor (docs/remote.md).
	Remote bool `json:"remote,omitempty"`
	Pos    Pos  `json:"pos"`
	// Run is the implementation; it never crosses a process boundary (a
	// worker's contributions travel as this struct's JSON, contrib/wire).
	// Its form (ArgsFormOf) comes with it.
	Run ToolRunner `json:"-"`

	schema, outSchema *Schema
}

// Invocation is what a command receives: its name as typed and the rest of
// the line.
type Invocation struct {
	Name string `json:"name"`
	Args string `json:"args"`
}

// CommandFunc expands a command into this turn's input. ok is false when the
// command passes (Starlark None) to the next contribution (DC8).
type CommandFunc func(ctx context.Context, inv Invocation) (text string, ok bool, err error)

// Command is one slash-command contribution (CC11, DC8).
type Command struct {
	Name        string   `json:"name"`
	Aliases     []string `json:"aliases,omitempty"`
	Description string   `json:"description,omitempty"`
	// ArgumentHint is a short usage of the arguments, listed with the
	// command ("QUEUE", "[TEXT]"; MC6).
	ArgumentHint string      `json:"argument_hint,omitempty"`
	Order        int         `json:"order,omitempty"`
	Pos          Pos         `json:"pos"`
	Run          CommandFunc `json:"-"`
}

// Site is where a template is bound (CC13).
type Site string

// Binding sites.
const (
	SitePrompt           Site = "prompt"
	SiteAttachment       Site = "attachment"
	SiteReview           Site = "review"
	SiteCompaction       Site = "compaction"
	SiteImageDescription Site = "image_description"
)

// ParseSite reads a site name; an unknown one is an error.
func ParseSite(s string) (Site, error) {
	switch Site(s) {
	case SitePrompt, SiteAttachment, SiteReview, SiteCompaction, SiteImageDescription:
		return Site(s), nil
	}
	return "", fmt.Errorf("site %q is not prompt, attachment, review, compaction or image_description", s)
}

// ResolveFunc produces a placeholder's text on one bind. ok is false when it
// returned nothing (the token stays in place).
type ResolveFunc func(ctx context.Context, site Site) (text string, ok bool, err error)

// Placeholder is one {{name}} contribution (CC12, CC13).
type Placeholder struct {
	Name    string      `json:"name"`
	Pos     Pos         `json:"pos"`
	Resolve ResolveFunc `json:"-"`
}

// StatusField is one status-line field declaration (CC15). Admission is the
// statusline package's; the staging registrar only carries it.
type StatusField struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Pos         Pos    `json:"pos"`
}

// Set is one generation's contributions, staged by the activator and frozen
// once published (AT1). Diagnostics hold every left-out entry.
type Set struct {
	Plugin       string
	Tools        []Tool
	Commands     []Command
	Placeholders []Placeholder
	StatusFields []StatusField
	// ClientFactories (CC8) and Classifiers (CC10) are served from the
	// published set by the host, in catalog load order.
	ClientFactories []ClientFactory
	Classifiers     []Classifier
	// Points are the entries of the table's contribution points and Hooks
	// the hooks and raw hooks (DC1, HK1); both workspace scope, in
	// contribute() order.
	Points      []PointEntry
	Hooks       []HookEntry
	Diagnostics []Diagnostic
}

// Rules are the names the embedding host owns; contributions that take one
// are left out (CC5, CC11, CC12).
type Rules struct {
	BuiltinTools     []string // e.g. read, write, edit, bash, grep, glob, skill
	BuiltinCommands  []string // verbs and their aliases, without "/"
	HostPlaceholders []string // e.g. mode, workspace, model
}
