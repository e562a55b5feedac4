package starhost

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/layout"
	"github.com/crystal-star/crystal-star/lifecycle"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
	"github.com/crystal-star/crystal-star/statusline"
)

// Version is this host's version, compared with plugins' min_host_version.
const Version = "0.1.0"

// Options configure a Host. The zero value is usable: home defaults to
// $CRYSTAL_HOME or ~/.crystal, the workspace to the current directory, and
// the host owns no built-in names.
type Options struct {
	// Home is the operator's crystal-star home: config.toml, the trust
	// file, providers.json, installed plugins, skills and data
	// (DefaultHome when the embedder has no better place).
	Home string
	// Workspace is the project directory: its .crystal directory holds
	// the workspace config layer, project plugins, skills and commands.
	Workspace string
	// Dev lists development plugin directories (or directories of them):
	// eligible in-process without a trust grant (DC22).
	Dev []string
	// Builtin lists directories of plugins the embedder bundles. They load
	// first in the catalog (CC6) and still need a trust grant (DC20).
	Builtin []string

	// Names the embedding host owns (CC5, CC11, CC12, CC15).
	BuiltinTools        []string
	BuiltinCommands     []string
	HostPlaceholders    []string
	BuiltinStatusFields []string
	// BuiltinCommandInfo describes built-in verbs for Commands (MC6): name,
	// aliases, description, argument hint. Verbs of BuiltinCommands not
	// described here are listed by name only.
	BuiltinCommandInfo []CommandInfo

	// BuiltinStatus returns the text of a built-in status field (model,
	// thinking, ...) for the operator's line; nil leaves them empty.
	BuiltinStatus func(name string) string

	// External tools are listed after plugin tools (CC6).
	External []ExternalTool

	// Notes receives every note and diagnostic. It may be called from any
	// goroutine; nil discards them.
	Notes func(Note)

	// Events receives every lifecycle change (activated, reloaded, kept,
	// faulted, blocked, stopped, unchanged) with its generation and timing,
	// and each reload of providers.json (providers-reloaded, or
	// providers-kept when a bad edit keeps the previous providers).
	Events func(Event)

	// Steps is the Starlark step budget of each run (0: 100,000,000
	// steps, about a second of plain Starlark); step_budget in
	// config.toml overrides it, for every plugin or per plugin
	// (StepBudget).
	Steps uint64
	// Isolation is where plugin code runs: IsolationInProcess (the default,
	// "" too) or IsolationProcess, a worker subprocess per plugin
	// (docs/isolation.md). Process here is a floor no config.toml weakens;
	// otherwise config.toml's isolation keys decide, and a workspace config
	// may only make them stricter.
	Isolation string
	// MemoryLimit is the memory budget of plugin code in bytes
	// (0: 512 MiB): in process mode each worker's
	// limit; in process, the heap watchdog's budget. memory_limit in
	// config.toml overrides it (Limits). Negative turns the in-process
	// watchdog off.
	MemoryLimit int64
	// CallbackTimeout bounds each run (0: 30s); callback_timeout in config.toml overrides it. Negative turns it
	// off in process.
	CallbackTimeout time.Duration
	// Workers is how many worker processes serve the plugins of process
	// isolation (0: DefaultWorkers; negative: one per plugin); each
	// worker's plugins are an isolation group that goes down together.
	// workers in config.toml overrides it (docs/isolation.md).
	Workers int
	// CleanupTimeout bounds the drain of a deactivated generation
	// (0: 5s).
	CleanupTimeout time.Duration
	// HostVersion overrides Version (for tests of min_host_version).
	HostVersion string
	// Display turns a plugin directory into the form used in positions;
	// the default makes it relative to the current directory (as it was
	// when New ran) when below it.
	Display func(dir string) string

	// Models supplies plugins' model clients (CC24–CC27); nil builds them
	// from {home}/providers.json with the built-in adapters the program
	// imports (starhost/models/openai, responses, anthropic, gemini,
	// deepseek, ollama; starhost/models/builtin for all six — starhost
	// links none itself), Adapters and plugins' client factories
	// (docs/models.md).
	Models ModelProvider
	// Adapters adds model adapters for protocols of the embedder's own, or
	// replaces built-in ones; they take precedence over plugins' client
	// factories for their protocol.
	Adapters []ModelAdapter
	// ModelCalls receives every plugin model call, apart from turns: not
	// in the transcript, the approval path or the turn budget (CC24). It
	// may be called from any goroutine; nil discards the reports.
	ModelCalls func(ModelCall)
	// ModelTimeout bounds one HTTP model call (DefaultModelTimeout).
	ModelTimeout time.Duration

	// Ask answers plugins' questions (ctx.ask in tools and commands): an
	// MCP client's elicitation (starhost/mcpserve.Elicitation), a console
	// prompt. nil declines every question: the callback gets None.
	Ask AskFunc
	// AskTimeout bounds how long one question waits for the person
	// (0: DefaultAskTimeout); ask_timeout in config.toml overrides it.
	// The wait counts against neither the step budget nor
	// CallbackTimeout.
	AskTimeout time.Duration
	// Classifications is the host's built-in classification of tool calls
	// by tool name (CC10); plugin classifiers are asked only for names it
	// does not hold that are not BuiltinTools either.
	Classifications map[string]Classification

	// Clock drives plugin timers; nil is the real clock. Tests pass a
	// ManualClock to run timer ticks without sleeping.
	Clock Clock

	// Defaults are the host's session defaults: the facts (mode,
	// approval mode, ...) and models callbacks see where no session is
	// served (attach, timers), and what every new session starts from
	// (Host.NewSession). A Model here stands for the model config.toml
	// would select.
	Defaults SessionOptions

	// Remote routes the calls of remote = True tools to the executors
	// config.toml names for their plugin (starhost/remote.New;
	// docs/remote.md). Nil runs every tool in the host.
	Remote RemoteTools

	// Points are the host's own entries of the contribution points' named
	// defaults and of the dispatch pipeline (DC1, docs/points.md).
	Points PointDefaults
}

// Host is an embedded plugin host: the one type an agent host uses. All
// methods are safe for concurrent use.
//
// New loads no plugin; Start does. Before Start (and after Close) the
// methods that serve plugins and return an error fail with ErrNotStarted
// (ErrHostClosed): Watch, Rescan, Reload, ExecuteCommand, Expand, RunHook,
// Compact. The methods without an error answer as a host with no plugins
// would: Tools lists only the external tools and the skill tool, Plugins,
// Hooks and Points list nothing of plugins, Dispatch of a plugin tool is
// unknown_tool, AssemblePrompt, Bind and the turn moments run the
// embedder's defaults only. The Operator works on disk either way; its
// results carry no plugin state before Start.
type Host struct {
	opts     Options
	config   atomic.Pointer[Config]
	registry *contrib.Registry
	manager  *lifecycle.Manager
	board    *statusline.Board
	sinkMu   sync.Mutex
	sinks    map[string]*statusline.Sink // live sink per plugin
	attached atomic.Bool                 // the first attach has begun: ctx.env is filled
	models   sessionState                // providers, adapters and saved model settings (session.go)
	base     *Session                    // the host's defaults: facts and models where no session is served
	points   pointsState                 // per-thread state captured from the points (points.go)
	order    sessionOrder                // live sessions; attach before session_started (sessionorder.go)
	router   *isolationRouter            // in-process or worker, per plugin (isolation.go)
	toolSets toolSetTable                // external tool sets and their tools (toolsets.go)

	life    hostLife   // started, closed, the last config read (serve.go)
	changes changeFeed // Subscribe's subscribers and the generation (watch.go)

	trustCache trustCache // the trust file, indexed (trustcache.go)
}

// New prepares a host: it reads the configuration layers (a bad file is a
// note), but discovers nothing and runs no plugin code until Start. An
// Options field it cannot honour (an unknown Isolation, a negative
// CleanupTimeout or ModelTimeout, a Classification with another risk or
// permission) is ErrInvalidOptions, naming the field.
func New(opts Options) (*Host, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.Home == "" {
		opts.Home = DefaultHome()
	}
	if opts.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, codeErrorf(ErrInvalidOptions, "Options.Workspace is empty and the current directory is unknown: %w", err)
		}
		opts.Workspace = wd
	}
	for _, p := range []*string{&opts.Workspace, &opts.Home} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, codeErrorf(ErrInvalidOptions, "%s: %w", *p, err)
		}
		*p = abs
	}
	if opts.HostVersion == "" {
		opts.HostVersion = Version
	}
	if opts.Display == nil {
		opts.Display = relativeDisplay()
	}
	h := &Host{opts: opts, board: newBoard(opts.BuiltinStatusFields)}
	h.base = h.newSession()
	h.base.SetFacts(opts.Defaults.Facts)
	if opts.Defaults.Model != nil {
		h.base.SetModel(*opts.Defaults.Model)
	}
	if opts.Defaults.Review != nil {
		h.base.SetReview(*opts.Defaults.Review)
	}
	if err := h.initAdapters(); err != nil {
		return nil, err
	}
	h.build()
	return h, nil
}

// validate rejects the fields New cannot honour, rather than serve with a
// setting the embedder did not ask for.
func (o *Options) validate() error {
	switch o.Isolation {
	case "", IsolationInProcess, IsolationProcess:
	default:
		return codeErrorf(ErrInvalidOptions, "Options.Isolation is %q; want %q, %q or \"\" (in process)", o.Isolation, IsolationInProcess, IsolationProcess)
	}
	for _, tool := range slices.Sorted(maps.Keys(o.Classifications)) {
		if err := contrib.Classification(o.Classifications[tool]).Validate(); err != nil {
			return codeErrorf(ErrInvalidOptions, "Options.Classifications[%q]: %v", tool, err)
		}
	}
	if o.CleanupTimeout < 0 {
		return codeErrorf(ErrInvalidOptions, "Options.CleanupTimeout is %s; want 0 (the default, 5s) or more", o.CleanupTimeout)
	}
	if o.AskTimeout < 0 {
		return codeErrorf(ErrInvalidOptions, "Options.AskTimeout is %s; want 0 (the default, %s) or more", o.AskTimeout, DefaultAskTimeout)
	}
	if o.ModelTimeout < 0 {
		return codeErrorf(ErrInvalidOptions, "Options.ModelTimeout is %s; want 0 (the default, %s) or more", o.ModelTimeout, DefaultModelTimeout)
	}
	return nil
}

// DefaultHome returns $CRYSTAL_HOME, else ~/.crystal.
func DefaultHome() string {
	return layout.DefaultHome()
}

func relativeDisplay() func(dir string) string {
	// The working directory is read once, when the host is made: Display
	// runs for every plugin, and os.Getwd is two stats each time.
	wd, err := os.Getwd()
	return func(dir string) string {
		if err != nil {
			return dir
		}
		rel, err := filepath.Rel(wd, dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(dir)
		}
		return filepath.ToSlash(rel)
	}
}

// note delivers d to Options.Notes, redacted.
func (h *Host) note(d contrib.Diagnostic) {
	if h.opts.Notes != nil {
		h.opts.Notes(noteOf(h.redactNote(d)))
	}
}

// testActivator, when set by a test of this package, replaces the Starlark
// activator (to stage work that ignores cancellation, which Starlark code
// cannot do).
var testActivator func() contrib.Activator

func (h *Host) activator() contrib.Activator {
	if testActivator != nil {
		return testActivator()
	}
	h.router = &isolationRouter{local: h.localActivator(), remote: h.processActivator(), mode: h.Isolation,
		steps: h.stepBudget, chosen: map[string]contrib.Activator{}, processing: h.anyProcess, workers: h.workerCount(),
		routed: h.routeRemote}
	return h.router
}

// build reads the configuration and prepares the registry and the
// lifecycle manager; no plugin is discovered and nothing runs.
func (h *Host) build() {
	h.reloadConfig()
	h.registry = contrib.NewRegistry(contrib.RegistryOptions{External: externalTools(h.opts.External), Skill: h.skillTool(), Notes: h.note,
		Defaults: h.pointDefaults(), Unavailable: h.faultedWhy, Settle: h.settleFaults})
	h.registry.Subscribe(h.points.invalidate) // first: captured state goes before embedders rebuild (DC12)
	h.registry.Subscribe(h.pointsChanged)
	h.board.Subscribe(h.statusChanged)
	h.manager = lifecycle.NewManager(lifecycle.Options{
		Roots:     h.roots(),
		Activator: h.activator(),
		Registry:  h.registry,
		Services:  services{h},
		Rules: contrib.Rules{BuiltinTools: h.opts.BuiltinTools, BuiltinCommands: h.opts.BuiltinCommands,
			HostPlaceholders: h.opts.HostPlaceholders},
		Disabled:       func(id string) bool { return slices.Contains(h.Config().Disabled, id) },
		HostVersion:    h.opts.HostVersion,
		CleanupTimeout: h.opts.CleanupTimeout,
		Display:        h.opts.Display,
		Admit:          h.admit,
		DeclaredTools:  builtins.DeclaredToolNames,
		Validate:       h.admitStatusFields,
		Events:         h.lifecycleEvent,
		BeforeAttach:   func() { h.attached.Store(true) },
		Attached:       h.attachedForSession,
	})
}

// settleFaults waits until the faults of a dead worker's plugins are
// recorded (contrib.RegistryOptions.Settle).
func (h *Host) settleFaults() {
	if h.manager != nil {
		h.manager.SettleFaults()
	}
}

// roots lists the plugin roots by priority: project, dev, home, built-in.
func (h *Host) roots() []lifecycle.Root {
	if !h.Config().Plugins {
		return nil
	}
	roots := []lifecycle.Root{{Dir: h.paths().Plugins(true), Source: contrib.SourceProject}}
	for _, d := range h.opts.Dev {
		roots = append(roots, lifecycle.Root{Dir: d, Source: contrib.SourceDev})
	}
	roots = append(roots, lifecycle.Root{Dir: h.paths().Plugins(false), Source: contrib.SourceHome})
	for _, d := range h.opts.Builtin {
		roots = append(roots, lifecycle.Root{Dir: d, Source: contrib.SourceBuiltin})
	}
	return roots
}

// Plugins returns every discovered plugin, in load order, with its trust
// verdict and its reclaim facts (leaked_generations, restart_recommended).
// A disabled plugin is stopped, with StopReason saying so (MC5).
func (h *Host) Plugins() []PluginInfo {
	ps := h.manager.Plugins()
	f, err := h.trustStore().Load()
	leaked, restart := h.manager.LeakedBy(), h.manager.Stats().RestartRecommended
	for i := range ps {
		p := &ps[i]
		p.LeakedGenerations, p.RestartRecommended = leaked[p.ID], restart
		switch {
		case p.Source == contrib.SourceDev:
			p.Trust = "dev"
		case p.Fingerprint == "":
		case err != nil:
			p.Trust = "unreadable"
		default:
			p.Trust = f.Verdict(p.ID, p.Fingerprint).String()
		}
	}
	return sandbox.ConvertAll(ps, pluginOf)
}

// faultedWhy says why plugin is faulted, with what brings it back, or ""
// when it is not (contrib.RegistryOptions.Unavailable): a call naming a
// tool of a faulted plugin hears that instead of unknown_tool. Only a miss
// asks, so listing the plugins here costs nothing on the call path.
func (h *Host) faultedWhy(plugin string) string {
	if h.manager == nil {
		return ""
	}
	for _, p := range h.manager.Plugins() {
		if p.ID != plugin || p.State != lifecycle.Faulted {
			continue
		}
		why := "faulted"
		for _, d := range slices.Backward(p.Diagnostics) {
			if d.Severity == contrib.SeverityError {
				why = fmt.Sprintf("faulted (%s)", d.Message)
				break
			}
		}
		return fmt.Sprintf("%s is %s; a fixed save or a reload of the plugin brings it back", plugin, why)
	}
	return ""
}

// Stats returns reclaim figures (DC27): generations still reclaiming,
// leaked_generations and restart_recommended. It never forces a garbage
// collection.
func (h *Host) Stats() Stats { return statsOf(h.manager.Stats()) }
