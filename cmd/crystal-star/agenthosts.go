package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/agenthosts"
	"github.com/crystal-star/crystal-star/starhost/agenthosts/claudecode"
	"github.com/crystal-star/crystal-star/starhost/agenthosts/geminicli"
	"github.com/crystal-star/crystal-star/starhost/agenthosts/live"
)

// maxHookInput bounds the event JSON a hook reads: a tool response can be
// large, never unbounded.
const maxHookInput = 16 << 20

var hookCmd = command{name: "hook", args: "claude-code|gemini-cli", summary: "serve one agent-host hook event: the event JSON on stdin, the host's reply on stdout",
	flags: []flagSpec{{"fail-open", "", "let a tool call run when its policy cannot (default: deny it)"},
		{"timeout", "DURATION", "the most one event may take (default 20s; a PreToolUse past it is denied)"}},
	example: "hook claude-code --dev plugins/guard", run: runHook}

var statuslineCmd = command{name: "statusline", args: "claude-code", summary: "print the operator's status line for an agent host's status JSON on stdin",
	example: "statusline claude-code", run: runStatusline}

// runHook serves one hook event of an agent host (docs/agent-hosts.md).
// The live crystal-star of the event's session (the `crystal-star mcp`
// the agent host started, agenthosts/live) serves it when there is one;
// otherwise this process does, one-shot: the plugins of the event's
// workspace (its cwd, unless --workspace), the home and --dev run as for
// the host's own turns.
func runHook(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) != 1 {
		return usagef("hook takes the agent host: claude-code or gemini-cli")
	}
	timeout := 20 * time.Second
	if v, ok := f.set["timeout"]; ok {
		if timeout, err = time.ParseDuration(v); err != nil || timeout <= 0 {
			return usagef("hook --timeout %s: want a positive duration such as 5s", v)
		}
	}
	_, failOpen := f.set["fail-open"]
	if f.args[0] != "claude-code" && f.args[0] != "gemini-cli" {
		return usagef("hook %s: unknown agent host; want claude-code or gemini-cli", f.args[0])
	}
	return e.serveAgent(live.Request{Command: "hook", Agent: f.args[0], FailOpen: failOpen}, timeout)
}

// runStatusline prints the operator's status line for Claude Code's status
// JSON: its model, directory, context and cost are built-in fields beside
// the plugins' fields. Like hook, the session's live crystal-star answers
// when there is one.
func runStatusline(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) != 1 || f.args[0] != "claude-code" {
		return usagef("statusline takes the agent host: claude-code")
	}
	return e.serveAgent(live.Request{Command: "statusline", Agent: f.args[0]}, 5*time.Second)
}

// serveAgent reads stdin into req and has the session's live crystal-star
// serve it, or serves it here; it prints the reply.
func (e *env) serveAgent(req live.Request, timeout time.Duration) error {
	data, err := io.ReadAll(io.LimitReader(e.stdin, maxHookInput))
	if err != nil {
		return err
	}
	req.Input, req.Timeout = data, timeout
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if os.Getenv(liveEnv) != "0" {
		rep, err := live.Forward(ctx, live.Keys(req.Agent, data), req)
		if err == nil {
			return e.reply(rep, req.Command == "hook")
		}
		if !errors.Is(err, live.ErrNoLive) {
			fmt.Fprintf(e.stderr, "note: %v; serving the event from disk\n", err)
		}
	}
	a := agentServer{status: new(atomic.Pointer[claudecode.Status])}
	a.open = func(id, dir, mode string) (*agenthosts.Session, error) {
		return e.agentSession(id, dir, mode, a.status)
	}
	return e.reply(a.serve(ctx, req), req.Command == "hook")
}

// liveEnv set to 0 keeps hook and statusline from forwarding, and mcp
// from serving a live session.
const liveEnv = "CRYSTAL_LIVE"

// agentServer serves agent-host requests on a session that open returns:
// one-shot, a host started for the request; live, the mcp command's host.
type agentServer struct {
	open func(id, dir, mode string) (*agenthosts.Session, error)
	// status is the agent host's last status JSON: the built-in status
	// fields show it.
	status *atomic.Pointer[claudecode.Status]
	// key is the live socket's key (live.Listen): the agent session's id,
	// or the agent host's process; session is the agent session it
	// serves.
	key     string
	session func() string
	// bound, for an agent host keyed by process (Gemini CLI), is the one
	// agent session the live host serves: the first whose hook event it
	// gets, until that session ends.
	bound *binding
}

// binding is the one agent session a live host keyed by the agent host's
// process serves. Another Gemini CLI started below the agent host — by a
// shell tool — has that process among its hooks' ancestors too, and the
// agent host's /clear starts another session in the same process: their
// events are refused (live.Reply.OtherSession) and served one-shot, so two
// sessions never share a live host's state.
type binding struct {
	mu    sync.Mutex
	id    string
	ended bool
}

// take binds id when no session is bound yet, and reports whether id is
// the bound session and still going on.
func (b *binding) take(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.id == "" {
		b.id = id
	}
	return id != "" && b.id == id && !b.ended
}

// end ends the bound session id: the live host serves no other.
func (b *binding) end(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.id == id {
		b.ended = true
	}
}

// current is the session being served, or "".
func (b *binding) current() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		return ""
	}
	return b.id
}

// serve answers req with everything a terminal would act on escaped, so
// whoever prints the reply — this CLI, or crystal-star-hook forwarding to a
// live host — prints it safely.
func (a *agentServer) serve(ctx context.Context, req live.Request) live.Reply {
	if a.bound != nil {
		var ev struct {
			SessionID string `json:"session_id"`
			Event     string `json:"hook_event_name"`
		}
		_ = json.Unmarshal(req.Input, &ev)
		if req.Command != "hook" || !a.bound.take(ev.SessionID) {
			return live.Reply{OtherSession: true}
		}
		if ev.Event == "SessionEnd" {
			defer a.bound.end(ev.SessionID)
		}
	}
	r := a.answer(ctx, req)
	if req.Command == "hook" {
		r.Stdout = []byte(jsonSafe(string(r.Stdout)))
	}
	r.Stderr = safe(r.Stderr)
	return r
}

func (a *agentServer) answer(ctx context.Context, req live.Request) live.Reply {
	switch req.Command {
	case "hook":
		if req.Agent == "gemini-cli" {
			h := geminicli.Handler{FailOpen: req.FailOpen, Open: func(_ context.Context, ev *geminicli.Event) (*agenthosts.Session, func(), error) {
				s, err := a.open(ev.SessionID, ev.Cwd, "")
				return s, func() {}, err
			}}
			r := h.Serve(ctx, req.Input)
			return live.Reply{Stdout: r.Stdout, Stderr: r.Stderr, Exit: r.Exit}
		}
		h := claudecode.Handler{FailOpen: req.FailOpen, Open: func(_ context.Context, ev *claudecode.Event) (*agenthosts.Session, func(), error) {
			s, err := a.open(ev.SessionID, ev.Cwd, ev.PermissionMode)
			return s, func() {}, err
		}}
		r := h.Serve(ctx, req.Input)
		return live.Reply{Stdout: r.Stdout, Stderr: r.Stderr, Exit: r.Exit}
	case "statusline":
		st, err := claudecode.ParseStatus(req.Input)
		if err != nil {
			return live.Reply{Stderr: "crystal-star: " + err.Error() + "\n", Exit: 1}
		}
		a.status.Store(st)
		s, err := a.open(st.SessionID, st.Dir(), "")
		if err != nil {
			return live.Reply{Stderr: "crystal-star: " + err.Error() + "\n", Exit: 1}
		}
		return live.Reply{Stdout: []byte(claudecode.Line(s.StatusLine()) + "\n")}
	}
	return live.Reply{Stderr: fmt.Sprintf("crystal-star: unknown request %q\n", req.Command), Exit: 2}
}

// liveSession prepares the mcp command to be the live host of the agent
// session that started it (CRYSTAL_LIVE=0 turns it off): the host serves
// the agent host's tools and status fields, with the session's facts. It
// returns nil when no agent session started it. Claude Code names its
// session in $CLAUDE_CODE_SESSION_ID, and the live socket is keyed by it.
// Gemini CLI names none ($GEMINI_CLI=1 says it started this process): the
// socket is keyed by the Gemini CLI process, this one's parent, whose
// hooks walk up to it, and the first session whose hook event arrives is
// the one it serves (binding).
func (e *env) liveSession() *agentServer {
	if os.Getenv(liveEnv) == "0" {
		return nil
	}
	a := &agentServer{status: new(atomic.Pointer[claudecode.Status])}
	if id := os.Getenv("CLAUDE_CODE_SESSION_ID"); id != "" {
		a.key, a.session = id, func() string { return id }
	} else if os.Getenv("GEMINI_CLI") == "1" {
		key, ok := live.ParentKey()
		if !ok {
			e.stderrf("note: the hooks of this Gemini CLI session are served one-shot: finding its live host needs Linux's /proc\n")
			return nil
		}
		a.bound = &binding{}
		a.key, a.session = key, a.bound.current
	} else {
		return nil
	}
	ws, err := e.workspaceDir()
	if err != nil {
		return nil
	}
	base := agenthosts.Session{ID: a.session(), Workspace: ws}
	f := base.Facts()
	e.facts, e.adapt = &f, agentOptions(a.status)
	var mu sync.Mutex
	a.open = func(id, _, mode string) (*agenthosts.Session, error) {
		mu.Lock()
		defer mu.Unlock()
		s := base
		s.ID, s.Mode, s.Host = id, mode, e.host
		if st := a.status.Load(); st != nil {
			s.Model = st.Model.ID
		}
		// Its host session takes its facts (agenthosts.Session).
		return &s, nil
	}
	return a
}

// serveLive listens on the agent session's live socket until the returned
// stop; a failure to listen is a note and the session is served one-shot.
func (e *env) serveLive(h *starhost.Host, a *agentServer) (stop func()) {
	srv, err := live.Listen(e.ctx, a.key, a.serve)
	if err != nil {
		e.stderrf("note: the agent session's hooks are served one-shot: its live socket (%s): %v\n", a.key, err)
		return nil
	}
	return func() { srv.Close() }
}

// agentOptions adapts the CLI's host options to serve an agent host: its
// tools, no built-in ones (agenthosts.HostOptions), and its status fields
// from the last status JSON.
func agentOptions(status *atomic.Pointer[claudecode.Status]) func(starhost.Options) starhost.Options {
	return func(o starhost.Options) starhost.Options {
		o = agenthosts.HostOptions(o)
		o.BuiltinStatusFields = claudecode.StatusFields
		o.BuiltinStatus = func(name string) string {
			if st := status.Load(); st != nil {
				return st.Builtin(name)
			}
			return ""
		}
		return o
	}
}

// agentSession starts the host for one agent-host session, one-shot: the
// workspace is dir unless --workspace was given. The host is closed by
// run's e.close.
func (e *env) agentSession(id, dir, mode string, status *atomic.Pointer[claudecode.Status]) (*agenthosts.Session, error) {
	if e.global.workspace == "" {
		e.global.workspace = dir
	}
	s := &agenthosts.Session{ID: id, Workspace: e.global.workspace, Mode: mode}
	if st := status.Load(); st != nil {
		s.Model = st.Model.ID
	}
	f := s.Facts()
	e.facts, e.noToolSets = &f, true
	e.adapt = agentOptions(status)
	h, err := e.start()
	if err != nil {
		return nil, err
	}
	s.Host = h
	return s, nil
}

// reply writes an agent-host reply: a hook's JSON with what a terminal
// would act on escaped inside its strings (the same JSON to its reader), a
// status line and stderr through the sanitiser, and the exit code.
func (e *env) reply(r live.Reply, isJSON bool) error {
	var err error
	switch {
	case len(r.Stdout) == 0:
	case isJSON:
		err = e.stdout.writeJSON(r.Stdout)
	default:
		_, err = e.stdout.Write(r.Stdout)
	}
	if err != nil {
		return err
	}
	if r.Stderr != "" {
		e.stderrf("%s", r.Stderr)
	}
	if r.Exit != 0 {
		return &exitError{code: r.Exit}
	}
	return nil
}

var setupCmd = command{name: "setup", args: "claude-code|gemini-cli", summary: "install crystal-star's hooks, status line and MCP server into an agent host's settings",
	flags: []flagSpec{{"project", "", "the workspace's settings (the default)"},
		{"user", "", "the user's settings"},
		{"dry-run", "", "print the change, write nothing"},
		{"plugin", "DIR", "write a Claude Code plugin bundle with a local marketplace into DIR instead"}},
	example: "setup claude-code --dev plugins/guard --dry-run", run: runSetup}

// runSetup merges crystal-star into the agent host's settings files
// (agenthosts.SettingsFile: the user's keys stay, a second run changes
// nothing, a changed file is backed up as FILE.bak), or writes a plugin
// bundle with --plugin.
func runSetup(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) != 1 || f.args[0] != "claude-code" && f.args[0] != "gemini-cli" {
		return usagef("setup takes the agent host: claude-code or gemini-cli")
	}
	_, project := f.set["project"]
	_, user := f.set["user"]
	_, dry := f.set["dry-run"]
	if project && user {
		return usagef("setup: --project and --user exclude each other")
	}
	s, err := e.claudeSetup()
	if err != nil {
		return err
	}
	dir, plugin := f.set["plugin"]
	switch {
	case plugin && f.args[0] == "claude-code":
		return e.writeBundle(dir, s.Bundle(), dry)
	case plugin:
		return usagef("setup --plugin makes a Claude Code plugin; for Gemini CLI run setup gemini-cli --project or --user")
	}
	if !user {
		if s.Project, err = e.workspaceDir(); err != nil {
			return err
		}
	}
	var files []*agenthosts.SettingsFile
	var notes []string
	if f.args[0] == "gemini-cli" {
		g := geminicli.Setup{Launch: s.Launch, Project: s.Project, UserDir: geminicli.UserDir()}
		files, notes, err = g.Files()
	} else {
		files, notes, err = s.Files()
	}
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(e.stderr, "note: "+n)
	}
	return e.writeSettings(files, dry)
}

// claudeSetup is how Claude Code runs this crystal-star: its absolute path
// and the global flags of this command line that say which plugins
// (--home, --dev), made absolute. The hooks run crystal-star-hook, the
// fast forwarder, when it is installed beside it and this program is the
// crystal-star it falls back to.
func (e *env) claudeSetup() (claudecode.Setup, error) {
	exe, err := selfPath()
	if err != nil {
		return claudecode.Setup{}, err
	}
	if goRunBuild(exe) {
		return claudecode.Setup{}, &usageError{
			msg:  fmt.Sprintf("setup: this crystal-star is go run's temporary build (%s), deleted when it exits: the agent host's hooks would run a program that is gone, and a hook that cannot start lets the tool call through", exe),
			hint: "install it, then run the installed crystal-star's setup: go install ./cmd/crystal-star ./cmd/crystal-star-hook (docs/agent-hosts.md)",
		}
	}
	s := claudecode.Setup{Launch: agenthosts.Launch{Exe: exe, HookExe: exe}}
	// The forwarder runs the crystal-star beside it: only this program
	// when it has that name (a renamed copy would be served by another
	// program, or by none, and then every tool call is denied).
	if fast := filepath.Join(filepath.Dir(exe), "crystal-star-hook"); fileExists(fast) && strings.TrimSuffix(filepath.Base(exe), ".exe") == "crystal-star" {
		s.HookExe = fast
	}
	s.ConfigDir, s.UserFile = claudecode.UserDirs()
	if e.global.home != "" {
		h, _ := filepath.Abs(e.global.home)
		s.Args = append(s.Args, "--home", h)
	}
	for _, d := range e.global.dev {
		a, _ := filepath.Abs(d)
		s.Args = append(s.Args, "--dev", a)
	}
	return s, nil
}

// goRunBuild reports whether exe is where `go run` puts the program it
// builds, $TMPDIR/go-buildN/bN/exe/NAME, which it deletes when the program
// exits.
func goRunBuild(exe string) bool {
	dir := filepath.Dir(exe)
	return filepath.Base(dir) == "exe" && strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build")
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// selfPath is this program's path as a shell finds it again: the command
// it was started as, made absolute.
func selfPath() (string, error) {
	p := os.Args[0]
	if !strings.ContainsRune(p, filepath.Separator) {
		lp, err := exec.LookPath(p)
		if err != nil {
			return os.Executable()
		}
		p = lp
	}
	return filepath.Abs(p)
}

func (e *env) workspaceDir() (string, error) {
	if e.global.workspace != "" {
		return filepath.Abs(e.global.workspace)
	}
	return os.Getwd()
}

// writeSettings writes (or with dry shows) each changed settings file.
func (e *env) writeSettings(files []*agenthosts.SettingsFile, dry bool) error {
	for _, f := range files {
		switch {
		case !f.Changed():
			fmt.Fprintf(e.stdout, "%s: already set up\n", f.Path)
		case dry:
			fmt.Fprint(e.stdout, f.Diff())
		default:
			backup, err := f.Write()
			if err != nil {
				return err
			}
			if backup != "" {
				fmt.Fprintf(e.stdout, "%s: updated (the previous file is %s)\n", f.Path, backup)
			} else {
				fmt.Fprintf(e.stdout, "%s: created\n", f.Path)
			}
		}
	}
	return nil
}

// writeBundle writes a plugin bundle's files into dir.
func (e *env) writeBundle(dir string, files map[string][]byte, dry bool) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if dry {
			fmt.Fprintf(e.stdout, "--- %s\n%s", p, files[n])
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s: written\n", p)
	}
	if !dry {
		abs, _ := filepath.Abs(dir)
		fmt.Fprintf(e.stdout, "install it: claude plugin marketplace add %s && claude plugin install %s@crystal-star-local\n", abs, claudecode.ServerName)
	}
	return nil
}
