package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/agenthosts"
	"github.com/crystal-star/crystal-star/starhost/agenthosts/claudecode"
)

// maxHookInput bounds the event JSON a hook reads: a tool response can be
// large, never unbounded.
const maxHookInput = 16 << 20

var hookCmd = command{name: "hook", args: "claude-code", summary: "serve one agent-host hook event: the event JSON on stdin, the host's reply on stdout",
	flags: []flagSpec{{"fail-open", "", "let a tool call run when its policy cannot (default: deny it)"},
		{"timeout", "DURATION", "the most one event may take (default 20s; a PreToolUse past it is denied)"}},
	example: "hook claude-code --dev plugins/guard", run: runHook}

var statuslineCmd = command{name: "statusline", args: "claude-code", summary: "print the operator's status line for an agent host's status JSON on stdin",
	example: "statusline claude-code", run: runStatusline}

// runHook serves one hook event of an agent host (docs/agent-hosts.md):
// the plugins of the event's workspace (its cwd, unless --workspace), the
// home and --dev run as for the host's own turns.
func runHook(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) != 1 {
		return usagef("hook takes the agent host: claude-code")
	}
	timeout := 20 * time.Second
	if v, ok := f.set["timeout"]; ok {
		if timeout, err = time.ParseDuration(v); err != nil || timeout <= 0 {
			return usagef("hook --timeout %s: want a positive duration such as 5s", v)
		}
	}
	_, failOpen := f.set["fail-open"]
	switch f.args[0] {
	case "claude-code":
	default:
		return usagef("hook %s: unknown agent host; want claude-code", f.args[0])
	}
	data, err := io.ReadAll(io.LimitReader(e.stdin, maxHookInput))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	h := claudecode.Handler{FailOpen: failOpen, Open: func(_ context.Context, ev *claudecode.Event) (*agenthosts.Session, func(), error) {
		return e.agentSession(ev.SessionID, ev.Cwd, ev.PermissionMode, "", nil)
	}}
	r := h.Serve(ctx, data)
	return e.reply(r.Stdout, r.Stderr, r.Exit)
}

// runStatusline prints the operator's status line for Claude Code's status
// JSON: its model, directory, context and cost are built-in fields beside
// the plugins' fields.
func runStatusline(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) != 1 || f.args[0] != "claude-code" {
		return usagef("statusline takes the agent host: claude-code")
	}
	data, err := io.ReadAll(io.LimitReader(e.stdin, maxHookInput))
	if err != nil {
		return err
	}
	st, err := claudecode.ParseStatus(data)
	if err != nil {
		return err
	}
	s, _, err := e.agentSession(st.SessionID, st.Dir(), "", st.Model.ID, func(o starhost.Options) starhost.Options {
		o.BuiltinStatusFields, o.BuiltinStatus = claudecode.StatusFields, st.Builtin
		return o
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, claudecode.Line(s.StatusLine()))
	return nil
}

// agentSession starts the host for one agent-host session: the workspace
// is dir unless --workspace was given. The host is closed by run's
// e.close.
func (e *env) agentSession(id, dir, mode, model string, adapt func(starhost.Options) starhost.Options) (*agenthosts.Session, func(), error) {
	if e.global.workspace == "" {
		e.global.workspace = dir
	}
	s := &agenthosts.Session{ID: id, Workspace: e.global.workspace, Mode: mode, Model: model}
	f := s.Facts()
	e.facts = &f
	e.adapt = func(o starhost.Options) starhost.Options {
		o = agenthosts.HostOptions(o)
		if adapt != nil {
			o = adapt(o)
		}
		return o
	}
	h, err := e.start()
	if err != nil {
		return nil, nil, err
	}
	s.Host = h
	return s, func() {}, nil
}

// reply writes a hook's answer: stdout as is (JSON), stderr sanitised, and
// the exit code.
func (e *env) reply(stdout []byte, stderr string, code int) error {
	if len(stdout) > 0 {
		if _, err := e.stdout.unsanitised().Write(stdout); err != nil {
			return err
		}
	}
	if stderr != "" {
		e.mu.Lock()
		fmt.Fprint(e.stderr, stderr)
		e.mu.Unlock()
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

var setupCmd = command{name: "setup", args: "claude-code", summary: "install crystal-star's hooks, status line and MCP server into an agent host's settings",
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
	if len(f.args) != 1 || f.args[0] != "claude-code" {
		return usagef("setup takes the agent host: claude-code")
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
	if dir, ok := f.set["plugin"]; ok {
		return e.writeBundle(dir, s.Bundle(), dry)
	}
	if !user {
		if s.Project, err = e.workspaceDir(); err != nil {
			return err
		}
	}
	files, notes, err := s.Files()
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
// (--home, --dev), made absolute.
func (e *env) claudeSetup() (claudecode.Setup, error) {
	exe, err := selfPath()
	if err != nil {
		return claudecode.Setup{}, err
	}
	s := claudecode.Setup{Exe: exe}
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
