package wire

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/crystal-star/crystal-star/contrib"
)

// EnvWorker is the environment variable that turns a re-executed host binary
// into a worker: its value is the protocol version. EnvMemoryLimit carries
// the worker's memory limit in bytes.
//
// Version is the protocol's version. A host passes it in EnvWorker and a
// worker answers it in its Hello; either side refuses the other's when they
// differ, naming both (a worker started by another build of the host
// binary: Options.Command, a binary replaced while the host runs). Bump it
// with every change to frames or bodies: 2 is the bell's bit and the
// compact tool call (issue 26).
const (
	EnvWorker      = "CRYSTAL_STAR_WORKER"
	EnvMemoryLimit = "CRYSTAL_STAR_WORKER_MEMORY"
	Version        = "2"
	// EnvProfile, in a binary built with -tags workerprofile, makes each
	// worker write its CPU and allocation profiles to files named by this
	// prefix, its pid and .cpu or .allocs; the host then lets a worker it
	// closes exit by itself instead of killing it, so the profiles are
	// written (docs/isolation.md, "Profiling a worker").
	EnvProfile = "CRYSTAL_STAR_WORKER_PROFILE"
)

// The methods the host calls on the worker.
const (
	MethodCompile     = "compile"     // Bundle → Activated (Compile errors only)
	MethodActivate    = "activate"    // Bundle (or none after compile) → Activated
	MethodAttach      = "attach"      // Attach → Outcome
	MethodTool        = "tool"        // Invoke → contrib.Result
	MethodCommand     = "command"     // Invoke → Outcome
	MethodPlaceholder = "placeholder" // Invoke → Outcome
	MethodHook        = "hook"        // Invoke → Outcome (Value)
	MethodPoint       = "point"       // Invoke → Outcome (Value, ToolErr)
	MethodClassify    = "classify"    // Invoke → Outcome (Class)
	MethodStart       = "start"       // nothing → nothing: start the generation's timers
	MethodPing        = "ping"        // nothing → nothing (measurements)
	// MethodDryRun activates a bundle (with its Deps) and closes it again at
	// once, leaving the worker free for the next: one worker serves every
	// dry run of a `check` run. Bundle → Activated.
	MethodDryRun = "dry_run"
)

// The methods the worker calls on the host (host services, called back).
const (
	MethodSession       = "session"        // → *SessionReply
	MethodEnv           = "env"            // → json.RawMessage of the environment (nil before attach)
	MethodDataDirs      = "data_dirs"      // → DataDirs
	MethodStatusSink    = "status_sink"    // → bool: the generation has a sink
	MethodModelClient   = "model_client"   // contrib.ModelRole → uint64 client handle
	MethodModelEpoch    = "model_epoch"    // contrib.ModelRole → uint64
	MethodModelComplete = "model_complete" // ModelCall → Completed
	MethodAddEntry      = "add_entry"      // RuntimeEntry → EntryHandle (ctx.contributions.add)
	MethodReleaseEntry  = "release_entry"  // string id → bool
	MethodAsk           = "ask"            // contrib.Question → contrib.Answer (ctx.ask)
)

// MethodRuntimeEntry is the host calling an entry a worker added at run
// time: Invoke (Index is the worker's entry number, Call) → Outcome.
const MethodRuntimeEntry = "runtime_entry"

// RuntimeEntry is an entry a plugin added with ctx.contributions.add; Index
// numbers its function in the worker.
type RuntimeEntry struct {
	Index int                `json:"index"`
	Entry contrib.PointEntry `json:"entry"`
}

// EntryHandle is the registry's handle of a runtime entry.
type EntryHandle struct {
	ID     string            `json:"id"`
	Point  contrib.PointName `json:"point"`
	Scope  contrib.Scope     `json:"scope"`
	Thread string            `json:"thread,omitempty"`
}

// The methods of client factories, which the host calls on the worker.
const (
	MethodFactoryCreate = "factory_create" // Invoke (Index, Client, Multimodal) → Created
	MethodCodecEncode   = "codec_encode"   // CodecCall → contrib.HTTPCall
	MethodCodecDecode   = "codec_decode"   // CodecCall → contrib.ModelReply
)

// ModelCall is one completion on a client the host holds for the worker.
type ModelCall struct {
	Client  uint64               `json:"client"`
	Request contrib.ModelRequest `json:"request"`
}

// Completed answers model_complete: the reply, or the failure with its
// stable code, which a plugin's complete(on_error = "return") hands on.
type Completed struct {
	Reply contrib.ModelReply `json:"reply,omitzero"`
	Err   *CodedError        `json:"err,omitempty"`
}

// CodedError is an error that crosses the channel with its stable code
// (the host's model adapters give one through an ErrorCode method).
type CodedError struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// NewCodedError carries err: its message, and its code when it has one.
func NewCodedError(err error) *CodedError {
	ce := &CodedError{Message: err.Error()}
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) {
		ce.Code = coded.ErrorCode()
	}
	return ce
}

func (e *CodedError) Error() string { return e.Message }

// ErrorCode returns the stable code ("" when the error had none).
func (e *CodedError) ErrorCode() string { return e.Code }

// Factory is a staged client factory without its functions.
type Factory struct {
	Protocol   string      `json:"protocol"`
	Multimodal bool        `json:"multimodal,omitempty"` // it has create_multimodal
	Pos        contrib.Pos `json:"pos"`
}

// Created answers factory_create: a codec handle, or why not.
type Created struct {
	Codec        uint64 `json:"codec,omitempty"`
	NotSupported bool   `json:"not_supported,omitempty"` // Err wraps contrib.ErrNotSupported
	Err          string `json:"err,omitempty"`
}

// CodecCall is one Encode or Decode on a codec the worker holds.
type CodecCall struct {
	Codec    uint64               `json:"codec"`
	Request  contrib.ModelRequest `json:"request,omitzero"`
	Response contrib.HTTPResponse `json:"response,omitzero"`
}

// The notifications the worker sends the host.
const (
	NotifyNote         = "note"         // contrib.Diagnostic
	NotifyFault        = "fault"        // contrib.Diagnostic: owned work must fault the plugin
	NotifyStatusSet    = "status_set"   // StatusUpdate
	NotifyStatusClear  = "status_clear" // StatusUpdate
	NotifyStatusRetire = "status_retire"
)

// Bundle is one activation request as it crosses the channel: the snapshot's
// files and everything of contrib.ActivationRequest that is data.
type Bundle struct {
	Plugin       string            `json:"plugin"`
	DisplayName  string            `json:"display_name"`
	Generation   string            `json:"generation"`
	Source       contrib.Source    `json:"source"`
	Files        map[string][]byte `json:"files"`
	Entry        string            `json:"entry"`
	SourceRoot   string            `json:"source_root"`
	Directory    string            `json:"directory"`
	Capabilities []string          `json:"capabilities,omitempty"`
	Exports      []string          `json:"exports,omitempty"`
	Rules        contrib.Rules     `json:"rules"`
	Steps        uint64            `json:"steps,omitempty"`
	Facts        contrib.Facts     `json:"facts"`
	// Dependencies are the plugins whose exports deps.require may return
	// (DC13); Deps carries the bundles of those that run in workers, and of
	// their own dependencies, in dependency order: the worker activates
	// them first itself, since exported services are Starlark values.
	Dependencies []string `json:"dependencies,omitempty"`
	Deps         []Bundle `json:"deps,omitempty"`
}

// Activated answers compile and activate: either the generation's
// contributions or the activation's failure. Contributions travel as the
// contrib types themselves, whose JSON is every field but the
// implementation (`json:"-"`): a field added to contrib.Tool or
// contrib.Command crosses without a change here (TestActivatedCarriesEveryField).
type Activated struct {
	Failed       bool                  `json:"failed,omitempty"`
	Compile      bool                  `json:"compile,omitempty"` // with Failed: a compile failure (AT3)
	Diagnostics  []contrib.Diagnostic  `json:"diagnostics,omitempty"`
	Tools        []contrib.Tool        `json:"tools,omitempty"`
	Commands     []contrib.Command     `json:"commands,omitempty"`
	Placeholders []contrib.Placeholder `json:"placeholders,omitempty"`
	StatusFields []contrib.StatusField `json:"status_fields,omitempty"`
	Hooks        []contrib.HookEntry   `json:"hooks,omitempty"`
	Points       []contrib.PointEntry  `json:"points,omitempty"`
	Classifiers  []contrib.Pos         `json:"classifiers,omitempty"`
	Factories    []Factory             `json:"factories,omitempty"`
	Exports      []string              `json:"exports,omitempty"` // the names of the services exported (DC13)
	// Probed says Attaches lists the attach stages that can do anything
	// for the generation (contrib.AttachProber): the host asks the worker
	// for those only, one round trip per stage saved for the others.
	Probed   bool                  `json:"probed,omitempty"`
	Attaches []contrib.AttachStage `json:"attaches,omitempty"`
}

// Invoke calls one contribution of the generation by its index in
// Activated, with the host facts of this moment.
type Invoke struct {
	Index int             `json:"index"`
	Args  json.RawMessage `json:"args,omitempty"` // tools
	// Group numbers the tool_provider answer a provided tool came from
	// (0: the generation's own tools); Progress says the caller listens to
	// ctx.progress (notifyProgress).
	Group    uint64             `json:"group,omitempty"`
	Progress bool               `json:"progress,omitempty"`
	Inv      contrib.Invocation `json:"inv,omitzero"`   // commands
	Site     contrib.Site       `json:"site,omitempty"` // placeholders
	Facts    contrib.Facts      `json:"facts"`
	// Hooks: the event and its payload; points: the call; classifiers:
	// the tool and its arguments (in Args).
	Event   contrib.HookEvent  `json:"event,omitempty"`
	Payload map[string]any     `json:"payload,omitempty"`
	Call    *contrib.PointCall `json:"call,omitempty"`
	Tool    string             `json:"tool,omitempty"`
	// Client factories: the request and which create to call.
	Client     *contrib.ClientRequest `json:"client,omitempty"`
	Multimodal bool                   `json:"multimodal,omitempty"`
}

// Attach runs one attach stage.
type Attach struct {
	Stage contrib.AttachStage `json:"stage"`
	Facts contrib.Facts       `json:"facts"`
}

// Outcome is the answer of a command, a placeholder or an attach stage.
type Outcome struct {
	Text string `json:"text,omitempty"`
	OK   bool   `json:"ok,omitempty"` // produced text / the stage ran
	// Parts are a command's content parts, when it returned some.
	Parts []contrib.Part      `json:"parts,omitempty"`
	Err   *contrib.Diagnostic `json:"err,omitempty"`
	// Value is a hook's or a point entry's JSON-like result ("null": None).
	Value json.RawMessage `json:"value,omitempty"`
	// ToolErr is a point entry's expected failure (error(code, message)),
	// and ToolErrPos where error(...) was called, when known.
	ToolErr    *contrib.ToolError `json:"tool_err,omitempty"`
	ToolErrPos *contrib.Pos       `json:"tool_err_pos,omitempty"`
	// Class is a classifier's answer when OK.
	Class contrib.Classification `json:"class,omitzero"`
	// Provided is a tool_provider entry's answer (instead of Value).
	Provided *Provided `json:"provided,omitempty"`
}

// DataDirs are a plugin's two data directories (CC29).
type DataDirs struct {
	Plugin    string `json:"plugin,omitempty"`
	Directory string `json:"directory,omitempty"`
	Global    string `json:"global,omitempty"`
	Project   string `json:"project,omitempty"`
	// Refused says why the plugin gets no data directory (another plugin
	// id owns them), instead of Global and Project.
	Refused *contrib.Diagnostic `json:"refused,omitempty"`
}

// StatusUpdate is one push to the generation's status sink (CC17).
type StatusUpdate struct {
	Name string `json:"name"`
	Text string `json:"text,omitempty"`
	// Pos is where ctx.status.set or clear was called, for the note about
	// a name the plugin did not declare.
	Pos *contrib.Pos `json:"pos,omitempty"`
}

// DiagError is a callback's failure carried as its diagnostic (builtins and
// the lifecycle read it with a Diagnostic method).
type DiagError struct{ D contrib.Diagnostic }

func (e *DiagError) Error() string { return e.D.String() }

// Diagnostic returns the failure's diagnostic.
func (e *DiagError) Diagnostic() contrib.Diagnostic { return e.D }

// Result reads the outcome of a hook or point entry: its JSON-like value
// (objects as map[string]any, numbers as json.Number, null as nil), its
// expected failure, or its diagnostic. A tool_provider's answer becomes
// tools through provided (nil: the outcome cannot hold one).
func (o Outcome) Result(provided func(*Provided) []contrib.Tool) (any, error) {
	switch {
	case o.Err != nil:
		return nil, &DiagError{*o.Err}
	case o.ToolErr != nil && o.ToolErrPos != nil:
		return nil, &contrib.PlacedError{ToolError: o.ToolErr, Pos: *o.ToolErrPos}
	case o.ToolErr != nil:
		return nil, o.ToolErr
	case o.Provided != nil && provided != nil:
		return provided(o.Provided), nil
	}
	return DecodeValue(o.Value)
}

// DecodeValue decodes JSON the way tools and points receive it: objects as
// map[string]any, numbers as json.Number; empty input is nil.
func DecodeValue(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}
