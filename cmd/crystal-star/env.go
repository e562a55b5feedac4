package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/remote"
	"github.com/crystal-star/crystal-star/starhost/toolsets"
)

// The names the crystal-star CLI owns as an embedding host (CC5, CC11,
// CC12, CC15).
var (
	cliBuiltinTools     = []string{"read", "write", "edit", "bash", "grep", "glob", "skill"}
	cliHostPlaceholders = []string{"mode", "workspace", "session_id", "approval_mode", "provider", "model"}
	cliStatusFields     = []string{"model", "thinking", "tier", "speed", "context", "cwd", "mode", "approval"}
)

// env is one command's environment: streams, flags and, once needed, the
// started host.
type env struct {
	global         global
	cmd            *command // the command running
	style          style
	stdin          io.Reader
	stdout, stderr *output    // every line printed goes through these (output.go)
	mu             sync.Mutex // serialises writes to stderr
	host           *starhost.Host
	session        *starhost.Session      // the command's agent session (sess), made on first use
	sessionID      string                 // its session id (the dev console's "dev")
	toolSets       *toolsets.Runner       // the home config's MCP tool sets (MC7)
	events         func(starhost.Event)   // set by the dev console before start
	forward        func(starhost.Note)    // also receives every note (mcp sets it before start)
	models         starhost.ModelProvider // replaces providers.json when set before start (mcp --sampling)
	ask            starhost.AskFunc       // answers ctx.ask when set before start (mcp: the client; dev: the console)
	clock          *starhost.ManualClock  // $CRYSTAL_CLOCK=manual (test.go)
	ctx            context.Context
	stop           context.CancelFunc
	// adapt changes the host's options before start: the agent-host
	// commands serve Claude Code's tools, not the CLI's (agenthosts.go).
	adapt func(starhost.Options) starhost.Options
	facts *starhost.Facts // the session facts before start, when not the CLI's
	// noToolSets keeps a one-shot agent-host hook from starting the
	// config's MCP tool sets: the agent host runs the tools.
	noToolSets bool

	// A one-shot command that prints plugins' projections itself sets
	// deferNotes before start: notes wait in deferred until flushNotes,
	// which leaves out what the output already shows (a plugin's blockers
	// and stop reason, including ones the command resolved, such as the
	// PluginUntrusted of the plugin trust grant admits; the diagnostics
	// `plugins` lists) instead of saying it twice.
	deferNotes bool
	deferred   []starhost.Note
	shownState map[string]bool // plugin ids whose state and reasons were printed
	shownDiags map[string]bool // diagnostics printed, by their line
}

// start creates and starts the host; notes go to stderr, one line each
// (printDiag).
func (e *env) start() (*starhost.Host, error) {
	if e.host != nil {
		return e.host, nil
	}
	var clock starhost.Clock
	if e.clock = clockFromEnv(); e.clock != nil {
		clock = e.clock
	}
	opts := starhost.Options{
		BuiltinStatus: func(name string) string { return cliStatusText(e.session)(name) },
		Home:          e.global.home, Workspace: e.global.workspace, Dev: devDirs(e.global.dev),
		Clock:        clock,
		BuiltinTools: cliBuiltinTools, BuiltinCommands: cliBuiltinCommands, BuiltinCommandInfo: cliCommandInfo,
		HostPlaceholders: cliHostPlaceholders, BuiltinStatusFields: cliStatusFields,
		Notes: e.note, Events: e.events,
		Classifications: cliClassifications, ModelCalls: e.modelCall, Models: e.models,
		Points: cliPoints, Ask: e.ask,
		// Remote tools go to the executors config.toml names
		// (docs/remote.md); without [executors] it does nothing.
		Remote: remote.New(remote.Options{}),
		// CRYSTAL_ISOLATION=process runs every plugin in a worker, whatever
		// config.toml says (docs/isolation.md).
		Isolation: os.Getenv("CRYSTAL_ISOLATION"),
	}
	// The CLI's sessions work in the default approval mode, unless an
	// agent host's hook said otherwise (e.facts).
	opts.Defaults.Facts = starhost.Facts{Mode: "work", ApprovalMode: "default"}
	if e.facts != nil {
		opts.Defaults.Facts = *e.facts
	}
	if e.adapt != nil {
		opts = e.adapt(opts)
	}
	h, err := starhost.New(opts)
	if err != nil {
		return nil, err
	}
	e.ctx, e.stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if err := h.Start(e.ctx); err != nil {
		return nil, err
	}
	e.host = h
	// A crystal-star started as a tool set starts none itself: it reads
	// the same config.toml and would start itself again, forever
	// (docs/toolsets.md).
	if _, child := toolsets.StartedAsToolSet(); !child && !e.noToolSets && len(h.Config().ToolSets) > 0 {
		e.toolSets = toolsets.Start(e.ctx, h, toolsets.Options{Notes: e.note})
	}
	return h, nil
}

// sess returns the command's agent session, starting it (its
// session_started hooks run) on first use: a one-shot command (call,
// expand, render, status, tools) is a session of its own, ended by close.
func (e *env) sess() *starhost.Session {
	if e.session == nil && e.host != nil {
		s, err := e.host.NewSession(e.ctx, starhost.SessionOptions{Facts: starhost.Facts{SessionID: e.sessionID}})
		if err != nil {
			return nil
		}
		e.session = s
	}
	return e.session
}

func (e *env) close() {
	if e.session != nil {
		e.session.End(context.Background())
	}
	if e.toolSets != nil {
		e.toolSets.Close()
	}
	if e.host != nil {
		_ = e.host.Close(context.Background())
		e.stop()
	}
}

// stderrf prints on stderr under e.mu, so a line never interleaves with
// a note printed at the same time.
func (e *env) stderrf(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fmt.Fprintf(e.stderr, format, args...)
}

// home is the command's crystal-star home: --home, else the default.
func (e *env) home() string {
	if e.global.home != "" {
		return e.global.home
	}
	return starhost.DefaultHome()
}

// note prints one note on stderr, as one line (details such as backtraces
// are shown by the plugins command).
func (e *env) note(n starhost.Note) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.deferNotes {
		e.deferred = append(e.deferred, n)
		return
	}
	e.printDiag(e.stderr, "", n)
	if e.forward != nil {
		e.forward(n)
	}
}

// shownPlugin records that the output shows p's state, blockers and stop
// reason, and with diags its diagnostics too.
func (e *env) shownPlugin(p starhost.PluginInfo, diags bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.shownState == nil {
		e.shownState, e.shownDiags = map[string]bool{}, map[string]bool{}
	}
	e.shownState[p.ID] = true
	for _, d := range p.Diagnostics {
		if diags {
			e.shownDiags[d.String()] = true
		}
	}
}

// flushNotes prints the deferred notes the output did not show, and ends
// deferring: notes of the host's shutdown print as they come.
func (e *env) flushNotes() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, n := range e.deferred {
		// A blocker or stop reason is a note without a position and with a
		// remedy (lifecycle's block and stop).
		state := n.Plugin != "" && n.Pos.File == "" && n.Remedy != ""
		if (state && e.shownState[n.Plugin]) || e.shownDiags[n.String()] {
			continue
		}
		e.printDiag(e.stderr, "", n)
	}
	e.deferred, e.deferNotes = nil, false
}

// safe is the one sanitiser of what the CLI prints (output.Write applies
// it to everything): controls and bidi overrides are shown escaped
// (`\x1b`, `\u202e`).
var safe = starhost.TerminalSafe

// printJSON prints v as indented JSON (output.writeJSON).
func (e *env) printJSON(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return e.stdout.writeJSON(b.Bytes())
}

// cmdFlags separates a command's own flags from its positional arguments.
// bools are flags without a value; values take one ("--site x" or
// "--site=x").
type cmdFlags struct {
	set  map[string]string
	args []string
}

func parseFlags(args []string, bools, values []string) (*cmdFlags, error) {
	f := &cmdFlags{set: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			f.args = append(f.args, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "--") || len(a) == 2 {
			f.args = append(f.args, a)
			continue
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		switch {
		case contains(bools, name) && !hasValue:
			f.set[name] = "true"
		case contains(values, name):
			if !hasValue {
				if i+1 >= len(args) {
					return nil, usagef("--%s needs a value", name)
				}
				i++
				value = args[i]
			}
			f.set[name] = value
		default:
			return nil, unknownFlag("--"+name, append(append([]string{}, bools...), values...))
		}
	}
	return f, nil
}

func (f *cmdFlags) has(name string) bool { _, ok := f.set[name]; return ok }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
