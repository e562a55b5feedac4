package contrib

import (
	"context"
	"io/fs"
	"strings"
)

// ActivationRequest is everything an Activator needs to build one generation
// of a plugin. The bundle is an immutable in-memory snapshot (DC23): the
// activator reads the module and every load() from it, never from disk.
type ActivationRequest struct {
	Plugin       string // plugin id
	DisplayName  string // for notes such as "Plugin 'Acme' ..."
	Generation   string // opaque, unique per activation
	Source       Source // which root the plugin came from
	Bundle       fs.FS  // the snapshot; paths are slash-separated, relative to the plugin directory
	Entry        string // entry file inside Bundle, e.g. "plugin.star"
	SourceRoot   string // prefix for file names in positions, e.g. "plugins/review"
	Directory    string // the plugin directory's own name, e.g. "review" (data directories, CC29)
	Capabilities []string
	Exports      []string // service names the manifest declares (DC13)
	// Providers holds, for each direct dependency, the services it exported
	// (DC13). Values are opaque to everything but the activator.
	Providers map[string]map[string]any
	Rules     Rules
	Services  Services
	// Steps is the step budget of each of the generation's runs (the
	// top level and each callback); 0 leaves it to the activator's own
	// setting. The host fills it from config.toml's step_budget.
	Steps uint64
	// Fault is called when owned work of the generation (a callback that
	// panicked in a host builtin) must fault the plugin. It may be nil.
	Fault func(Diagnostic)
	// HoldNotes, when set, receives the notes the activator would send to
	// Services while Activate runs (a top level's print, CC24's model
	// access note); afterwards notes go to Services. The lifecycle sets it
	// when it executes independent modules in parallel, and delivers what
	// it held in load order.
	HoldNotes func(Diagnostic)
}

// Services are the host's effects offered to plugin code. The lifecycle
// passes the embedder's implementation through unchanged. Optional
// capabilities are further interfaces a Services value may implement.
type Services interface {
	// Note delivers a diagnostic or debug note to the embedder.
	Note(Diagnostic)
	// Facts returns the host facts every callback's ctx carries (CC7).
	Facts() Facts
}

// Facts are the per-call host facts (CC7, CC13). Strings the host does not
// have yet are empty. They never include the user's question.
type Facts struct {
	Workspace    string
	SessionID    string
	Mode         string
	ApprovalMode string
	Provider     string
	Model        string
}

// AttachStage names one of the attach callbacks, in the order they run (CC3,
// CC20, CC25, CC29, CC17).
type AttachStage string

// The attach stages, in order.
const (
	AttachEnv      AttachStage = "attach"
	attachSession  AttachStage = "attach_session"
	AttachClients  AttachStage = "attach_clients"
	AttachDataDirs AttachStage = "attach_data_dirs"
	AttachStatus   AttachStage = "attach_status"
)

// AttachStages lists the stages in the order the host runs them.
var AttachStages = []AttachStage{AttachEnv, attachSession, AttachClients, AttachDataDirs, AttachStatus}

// Instance is one activated generation as the activator built it.
type Instance interface {
	// Set returns the staged contributions; the lifecycle publishes them.
	Set() *Set
	// Exports returns the services the plugin exported (DC13).
	Exports() map[string]any
	// Attach runs one attach stage. It reports whether the plugin has a
	// callback for it and the callback's error, if any.
	Attach(ctx context.Context, stage AttachStage) (ran bool, err error)
	// Close releases what the generation owns (timers, sinks). It is
	// idempotent.
	Close()
}

// AttachProber is implemented by instances that can tell, without running
// anything, whether Attach of a stage would do anything. Every reload runs
// `attach` of every plugin again (CC3) and most plugins have none, so the
// lifecycle skips the others instead of admitting an empty call through
// each generation's gate.
type AttachProber interface {
	Attaches(stage AttachStage) bool
}

// Starter is implemented by instances that own background work (plugin
// timers). The lifecycle calls Start once the generation is published and
// attached; the work must go through gate and stop when the instance closes.
type Starter interface {
	Start(gate *Gate)
}

// Activator builds generations. The lifecycle calls it; the builtins package
// implements it for Starlark. Activate must not publish anything.
type Activator interface {
	// Compile checks that the bundle compiles without running any of it.
	// It returns an *ActivationError with Compile set, or nil.
	Compile(req ActivationRequest) error
	// Activate compiles and executes the module with a staging registrar.
	Activate(ctx context.Context, req ActivationRequest) (Instance, error)
}

// ActivationError is the error of a failed activation. Compile is true when
// the source did not compile (syntax, resolve or load errors); otherwise the
// failure happened while executing. Either way the lifecycle keeps the active
// generation serving, and faults a plugin that had none (AT3).
type ActivationError struct {
	Compile     bool
	Diagnostics []Diagnostic
}

func (e *ActivationError) Error() string {
	parts := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		parts[i] = d.String()
	}
	return strings.Join(parts, "\n")
}
