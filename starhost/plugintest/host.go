package plugintest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/crystal-star/crystal-star/internal/layout"
	"github.com/crystal-star/crystal-star/lifecycle"
	"github.com/crystal-star/crystal-star/starhost"
)

// TB is the part of testing.TB that NewHost uses; *testing.T and
// *testing.B implement it.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
	TempDir() string
}

// Options configure a test host. The zero value starts the plugin alone,
// with no model and every status field the plugin declares on the
// operator's line.
type Options struct {
	// Config is written to {home}/config.toml before the host starts. A
	// config that sets status_line keeps its own line.
	Config string
	// Model starts a FakeModel and selects it as the session model
	// (FakeProvider/FakeModelID). Replies, when set, are its scripted
	// replies (and imply Model).
	Model   bool
	Replies []string
	// Host holds further host options: the names the embedder owns, Points,
	// External tools, Steps... (BuiltinTools defaults to DefaultBuiltinTools).
	// Home, Workspace, Dev, Clock and Display are
	// set by the kit; Notes is called as well as recorded. Without
	// Points.Approve, the host approves every dispatched call (as the dev
	// console does), so Dispatch shows the whole pipeline.
	Host starhost.Options
}

// DefaultBuiltinTools are the built-in tool names a kit host declares when
// Options.Host.BuiltinTools is nil: the usual agent tools, as the CLI
// declares them.
var DefaultBuiltinTools = []string{"read", "write", "edit", "bash", "grep", "glob"}

// Host is a started host over one plugin directory, for tests, in the
// style of httptest.Server: home and workspace are fresh temporary
// directories, the plugin is a copy of its bundle — the files the host
// reads, without .git or desktop/ — (so a test can edit it and Reload)
// loaded as a development plugin, plugin timers run on a ManualClock, and
// a FakeModel answers model calls when asked for. Its methods are safe for
// concurrent use.
type Host struct {
	// Host is the started host; every starhost method is available on it.
	Host *starhost.Host
	// Session is the test's agent session on Host: Call, Expand, Bind,
	// StatusLine and Dispatch serve it. A test may make more with
	// Host.NewSession.
	Session *starhost.Session
	builtin []string // the host's built-in tool names, answered by invoke
	// Dir is the copy of the plugin directory the host loads.
	Dir string
	// Home and Workspace are the host's temporary directories.
	Home, Workspace string
	// Model is the fake model server, or nil without Options.Model.
	Model *FakeModel
	// Clock drives the plugin's timers.
	Clock *starhost.ManualClock

	tmp   string // removed by Close when Start made it
	mu    sync.Mutex
	notes []starhost.Note // every note delivered, in order
}

// NewHost starts a host over the plugin in dir (Start) in t.TempDir() and
// closes it when the test ends. When the plugin does not activate, the test
// fails with the plugin's state, blockers and diagnostics.
func NewHost(t TB, dir string, opts Options) *Host {
	t.Helper()
	h, err := start(t.TempDir(), dir, opts)
	if err != nil {
		t.Fatalf("plugintest: %v", err)
		return nil
	}
	t.Cleanup(h.Close)
	return h
}

// Start is NewHost without a test: the host's directories are a new
// temporary directory that Close removes. The error describes a plugin
// that did not activate.
func Start(dir string, opts Options) (*Host, error) {
	tmp, err := os.MkdirTemp("", "plugintest-")
	if err != nil {
		return nil, err
	}
	h, err := start(tmp, dir, opts)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	h.tmp = tmp
	return h, nil
}

func start(tmp, dir string, opts Options) (*Host, error) {
	src, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	h := &Host{Dir: filepath.Join(tmp, "plugin", filepath.Base(src)), Home: filepath.Join(tmp, "home"),
		Workspace: filepath.Join(tmp, "workspace"), Clock: starhost.NewManualClock()}
	b, err := lifecycle.ReadBundle(src)
	if err != nil {
		return nil, err
	}
	if err := writeFiles(h.Dir, b.Files()); err != nil {
		return nil, err
	}
	for _, d := range []string{h.Dir, h.Home, h.Workspace} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(layout.Paths{Home: h.Home}.Config(false), []byte(opts.Config), 0o644); err != nil {
		return nil, err
	}
	if opts.Model || len(opts.Replies) > 0 {
		h.Model = NewFakeModel(opts.Replies...)
		if err := h.Model.WriteConfig(h.Home); err != nil {
			h.Model.Close()
			return nil, err
		}
	}
	o := opts.Host
	o.Home, o.Workspace, o.Dev, o.Clock = h.Home, h.Workspace, []string{h.Dir}, h.Clock
	// Positions name the plugin's own directory, not the copy.
	o.Display = func(d string) string {
		if d == h.Dir {
			return filepath.ToSlash(dir)
		}
		return filepath.ToSlash(d)
	}
	if o.BuiltinTools == nil {
		// An agent host's own tools, as the CLI names them, so Dispatch
		// runs a plugin's tool_call hooks on a call to bash or read.
		o.BuiltinTools = DefaultBuiltinTools
	}
	if o.Points.Approve == nil {
		o.Points.Approve = func(context.Context, starhost.ApprovalRequest) starhost.Approval {
			return starhost.Approval{Approved: true, Reason: "plugintest approves every call"}
		}
	}
	notes := o.Notes
	o.Notes = func(n starhost.Note) {
		h.mu.Lock()
		h.notes = append(h.notes, n)
		h.mu.Unlock()
		if notes != nil {
			notes(n)
		}
	}
	h.builtin = o.BuiltinTools
	if h.Host, err = starhost.New(o); err == nil {
		err = h.Host.Start(context.Background())
	}
	if err == nil {
		h.Session, err = h.Host.NewSession(context.Background(), starhost.SessionOptions{})
	}
	if err == nil {
		err = h.problem()
	}
	if err != nil {
		h.Close()
		return nil, err
	}
	if !strings.Contains(opts.Config, "status_line") {
		for _, r := range h.Host.StatusView() {
			if !r.Builtin {
				_, _ = h.Host.EditStatusLine("add", r.Name)
			}
		}
	}
	return h, nil
}

// problem returns why the plugin is not active or did not compile.
func (h *Host) problem() error {
	if msg := inactive(h.Host.Plugins()); msg != "" {
		return errors.New(msg)
	}
	p := h.Plugin()
	var errs []string
	for _, d := range p.Diagnostics {
		if d.Severity == starhost.SeverityError {
			errs = append(errs, "  "+d.String())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("plugin %s has errors:\n%s", p.ID, strings.Join(errs, "\n"))
	}
	return nil
}

// Plugin returns the projection of the plugin under test.
func (h *Host) Plugin() starhost.PluginInfo {
	for _, p := range h.Host.Plugins() {
		if p.Source == starhost.SourceDev {
			return p
		}
	}
	return starhost.PluginInfo{}
}

// Call invokes a tool of either catalog with JSON arguments ("" is {}).
func (h *Host) Call(tool, args string) starhost.ToolResult {
	if args == "" {
		args = "{}"
	}
	return h.Session.Thread("").Tools(context.Background(), starhost.PlanAndWork).Invoke(context.Background(), tool, json.RawMessage(args))
}

// Expand runs a command (with or without its "/") and returns the turn
// input it produced; ok is false when every command passed.
func (h *Host) Expand(command, args string) (text string, ok bool, err error) {
	return h.Session.Expand(context.Background(), command, args)
}

// Bind binds a template at the prompt site.
func (h *Host) Bind(template string) string {
	return h.Session.Bind(context.Background(), template, starhost.SitePrompt)
}

// StatusLine returns the operator's status line as the test's session shows it.
func (h *Host) StatusLine() string { return h.Session.StatusLine() }

// Dispatch runs one tool call through the dispatch pipeline (classify,
// policy, approval and tool_call hooks, invoke, tool_result hooks) on
// thread "test".
func (h *Host) Dispatch(tool, args string) starhost.DispatchResult {
	return h.Session.Thread("test").Dispatch(context.Background(), starhost.ToolCall{ID: "call-1", Name: tool, Arguments: json.RawMessage(args)}, h.invoke)
}

// invoke ends a dispatched call: a plugin tool is left to Dispatch, which
// runs it from the thread's snapshot; a built-in tool is not run (the kit
// has no shell), its result is the text "NAME ARGS", so a test sees what
// the hooks made of the call.
func (h *Host) invoke(_ context.Context, call starhost.ToolCall) (starhost.ToolResult, bool) {
	if slices.Contains(h.builtin, call.Name) {
		return starhost.ToolResult{Text: call.Name + " " + string(call.Arguments)}, true
	}
	return starhost.ToolResult{}, false
}

// Advance moves the plugin timers' clock (ManualClock.Advance) and returns
// the number of ticks run.
func (h *Host) Advance(d time.Duration) int { return h.Clock.Advance(d) }

// WriteFile writes a file of the plugin's copy (name relative to Dir).
func (h *Host) WriteFile(name, content string) error {
	return writeFiles(h.Dir, map[string][]byte{name: []byte(content)})
}

// writeFiles writes files (slash paths relative to dir → contents) below
// dir, creating directories as needed.
func writeFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Reload re-reads the plugin's copy and activates the new content. The
// error describes a plugin that is no longer active or whose new source did
// not compile (the old generation still serves then, AT3).
func (h *Host) Reload() error {
	h.Host.Reload(context.Background(), h.Dir)
	return h.problem()
}

// Notes returns every note the host delivered so far.
func (h *Host) Notes() []starhost.Note {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.notes)
}

// Close closes the host and the fake model; a host made by Start also
// removes its directories. It is idempotent.
func (h *Host) Close() {
	if h.Host != nil {
		_ = h.Host.Close(context.Background())
	}
	if h.Model != nil {
		h.Model.Close()
	}
	if h.tmp != "" {
		os.RemoveAll(h.tmp)
	}
}
