package starhost_test

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/internal/testkit/hostkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// onePlugin writes a dev plugin acme.one with one tool and one command and
// returns its directory.
func onePlugin(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "one")
	testkit.WriteTree(t, dir, map[string]string{
		"plugin.toml": "id = \"acme.one\"\nversion = \"1.0.0\"\n",
		"plugin.star": "contribute(tools = [tool(name = \"v\", catalogs = \"work\", run = lambda ctx, args: \"one\")],\n" +
			"    commands = [command(name = \"go\", description = \"Go.\", run = lambda ctx, args: \"went\")])\n",
	})
	return dir
}

// shaped checks the one message shape of the host's errors: `what
// happened [code]`, the code shown once, no contract id and no CLI
// command in the text, and errors.Is finding the code.
func shaped(t *testing.T, what string, err error, code starhost.Code) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Errorf("%s: %v; want it to wrap %s", what, err, code)
		return
	}
	msg, tag := err.Error(), "["+string(code)+"]"
	if strings.Count(msg, string(code)) != 1 || !strings.Contains(msg, tag) {
		t.Errorf("%s: %q; want the code once, as %s", what, msg, tag)
	}
	if !strings.HasSuffix(msg, tag) && !strings.Contains(msg, tag+"; ") {
		t.Errorf("%s: %q; want it to end with %s (or %s; remedy)", what, msg, tag, tag)
	}
	if id := regexp.MustCompile(`\b(CC|DC|AT|HK|MC)\d+\b`).FindString(msg); id != "" {
		t.Errorf("%s: %q names the contract rule %s", what, msg, id)
	}
	if strings.Contains(msg, "crystal-star") || strings.Contains(msg, "/statusline") {
		t.Errorf("%s: %q names a CLI command", what, msg)
	}
}

// Issue 12 point 6: a host used before Start says so with ErrNotStarted
// instead of watching nothing, naming a plugin unknown or running no hook;
// after Close it says ErrHostClosed.
func TestNotStartedIsAnError(t *testing.T) {
	dir := onePlugin(t)
	h, err := starhost.New(starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Dev: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	// A done context: were Watch to watch anyway, it would return at once.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	ready := false
	err = h.Watch(done, func() { ready = true })
	shaped(t, "Watch before Start", err, starhost.ErrNotStarted)
	if ready {
		t.Error("Watch before Start called ready: it watches nothing")
	}
	bg := context.Background()
	// The methods without an error answer as a host with no plugins (Host).
	for _, tool := range h.Tools(bg, "", starhost.PlanAndWork).List() {
		if tool.Name == "v" {
			t.Error("Tools before Start lists a plugin tool")
		}
	}
	if len(h.Plugins()) != 0 {
		t.Errorf("Plugins before Start = %v", h.Plugins())
	}
	res := h.Dispatch(bg, "t", starhost.ToolCall{ID: "1", Name: "v"}, nil)
	if !errors.Is(res.Result.Err(), starhost.ErrUnknownTool) {
		t.Errorf("Dispatch before Start: %v; want unknown_tool", res.Result.Err())
	}
	shaped(t, "Reload before Start", h.Reload(bg, dir), starhost.ErrNotStarted)
	shaped(t, "Rescan before Start", h.Rescan(bg), starhost.ErrNotStarted)
	_, err = h.ExecuteCommand(bg, "go", "")
	shaped(t, "ExecuteCommand before Start", err, starhost.ErrNotStarted)
	_, err = h.RunHook(bg, "user_message", map[string]any{"text": "hi"})
	shaped(t, "RunHook before Start", err, starhost.ErrNotStarted)
	_, err = h.Compact(bg, "t", "Summarize.", "body")
	shaped(t, "Compact before Start", err, starhost.ErrNotStarted)

	if err := h.Start(bg); err != nil {
		t.Fatal(err)
	}
	if err := h.Reload(bg, dir); err != nil {
		t.Errorf("Reload after Start: %v", err)
	}
	err = h.Reload(bg, "")
	shaped(t, `Reload("")`, err, starhost.ErrNoPlugin)
	if !strings.Contains(err.Error(), "no plugin directory was given") {
		t.Errorf(`Reload(""): %q; want it to say no directory was given`, err)
	}
	if err := h.Close(bg); err != nil {
		t.Fatal(err)
	}
	shaped(t, "Reload after Close", h.Reload(bg, dir), starhost.ErrHostClosed)
	shaped(t, "Watch after Close", h.Watch(done, nil), starhost.ErrHostClosed)
}

// Issue 12 point 6: every error the host builds reads `what happened
// [code]`, keeps errors.Is, and names no contract id or CLI command — the
// operator's not-applied reasons included.
func TestErrorsReadWhatHappenedThenCode(t *testing.T) {
	dir := onePlugin(t)
	h, _ := hostkit.Start(t, starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Dev: []string{dir}})
	bg := context.Background()
	shaped(t, "Start twice", h.Start(bg), starhost.ErrHostStarted)
	_, err := h.ExecuteCommand(bg, "deploy", "")
	shaped(t, "unknown command", err, starhost.ErrUnknownCommand)
	shaped(t, "Reload of no plugin", h.Reload(bg, filepath.Join(dir, "nowhere")), starhost.ErrNoPlugin)
	_, err = h.SkillText("nobody")
	shaped(t, "unknown skill", err, starhost.ErrNoSkill)
	_, err = h.RunHook(bg, "no_such_event", nil)
	shaped(t, "unknown hook event", err, starhost.ErrUnknownHookEvent)

	op := h.Operator()
	_, err = op.Enable(bg, "nobody.here", false)
	shaped(t, "Enable of no plugin", err, starhost.ErrNoPlugin)
	_, err = op.Grant(bg, "acme.one")
	shaped(t, "Grant of a dev plugin", err, starhost.ErrNotApplied)
	_, err = op.Remove(bg, "acme.one")
	shaped(t, "Remove of a dev plugin", err, starhost.ErrNotApplied)
	_, err = op.Install(bg, filepath.Join(t.TempDir(), "nonexistent"), false)
	shaped(t, "Install of no plugin directory", err, starhost.ErrNotApplied)
}

// Issue 12 point 6: a failed Reload wraps the failing Note itself:
// errors.As gives its place as data, errors.Is its Code, and the text
// shows the code once.
func TestReloadErrorIsTheNote(t *testing.T) {
	dir := onePlugin(t)
	h, _ := hostkit.Start(t, starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Dev: []string{dir}})
	testkit.WriteTree(t, dir, map[string]string{"plugin.star": "x = 1\ny = {}[\"missing\"]\n"})
	err := h.Reload(context.Background(), dir)
	var note starhost.Note
	if !errors.As(err, &note) {
		t.Fatalf("failed reload: %v; want errors.As to give the Note", err)
	}
	if note.Code != "ExecutionFailed" || note.Plugin != "acme.one" || filepath.Base(note.Pos.File) != "plugin.star" || note.Pos.Line != 2 || note.Pos.Col == 0 {
		t.Errorf("note = %+v; want ExecutionFailed of acme.one at plugin.star:2", note)
	}
	shaped(t, "failed reload", err, starhost.Code("ExecutionFailed"))
	if !strings.Contains(err.Error(), "keeps serving") {
		t.Errorf("failed reload: %q; want it to say the previous generation keeps serving", err)
	}
}

// Issue 12 point 6: EditStatusLine's errors carry codes and send the user
// to no console command.
func TestEditStatusLineCodes(t *testing.T) {
	h, _ := hostkit.Start(t, starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), BuiltinStatusFields: []string{"model"}})
	for _, tc := range []struct {
		verb, arg string
		code      starhost.Code
	}{
		{"add", "nope", starhost.ErrUnknownStatusField},
		{"remove", "model", starhost.ErrUnknownStatusField},
		{"add", "", starhost.ErrInvalidStatusLine},
		{"add", "a--b", starhost.ErrInvalidStatusLine},
		{"add", "off", starhost.ErrInvalidStatusLine},
		{"on", "now", starhost.ErrInvalidStatusLine},
		{"toggle", "", starhost.ErrInvalidStatusLine},
	} {
		changed, err := h.EditStatusLine(tc.verb, tc.arg)
		shaped(t, "EditStatusLine("+tc.verb+", "+tc.arg+")", err, tc.code)
		if changed {
			t.Errorf("EditStatusLine(%s, %s) changed the line", tc.verb, tc.arg)
		}
	}
	if changed, err := h.EditStatusLine("add", "model"); !changed || err != nil {
		t.Errorf("add model: %v, %v", changed, err)
	}
}

// Issue 12 point 6: New refuses options it cannot honour, naming the field
// and the values it takes, instead of serving with another setting.
func TestNewRejectsInvalidOptions(t *testing.T) {
	for _, tc := range []struct {
		opts  starhost.Options
		field string
		want  []string
	}{
		{starhost.Options{Isolation: "bogus"}, "Isolation", []string{`"bogus"`, `"in_process"`, `"process"`}},
		{starhost.Options{CleanupTimeout: -time.Second}, "CleanupTimeout", []string{"-1s"}},
		{starhost.Options{ModelTimeout: -time.Second}, "ModelTimeout", []string{"-1s"}},
		{starhost.Options{Classifications: map[string]starhost.Classification{"rm": {Risk: "high", Permission: "alow"}}},
			"Classifications", []string{`"rm"`, `"alow"`, "allow ask deny"}},
	} {
		tc.opts.Home, tc.opts.Workspace = t.TempDir(), t.TempDir()
		h, err := starhost.New(tc.opts)
		if h != nil {
			t.Errorf("%s: New returned a host", tc.field)
		}
		shaped(t, tc.field, err, starhost.ErrInvalidOptions)
		for _, w := range append(tc.want, "Options."+tc.field) {
			if err != nil && !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q; want it to name %s", tc.field, err, w)
			}
		}
	}
	for _, iso := range []string{"", starhost.IsolationInProcess, starhost.IsolationProcess} {
		if _, err := starhost.New(starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Isolation: iso}); err != nil {
			t.Errorf("Isolation %q: %v", iso, err)
		}
	}
}

// Issue 12 point 6: an authoritative entry's failure, through Compact or
// a Resolution, wraps ErrPointFailed and reads `… [point_failed]`.
func TestPointFailureIsACode(t *testing.T) {
	h, _, _ := pointsHost(t, starhost.Options{}, map[string]string{"a": `
def summarize(ctx, req):
    fail("summarizer broke")

contribute(compaction_summarizers = [compaction_summarizer(run = summarize)])
`})
	_, err := h.Compact(context.Background(), "t", "Summarize.", "body")
	shaped(t, "Compact with a failing summarizer", err, starhost.ErrPointFailed)
	_, err = h.Resolve(starhost.PointCompactionSummary, "t").Collect(context.Background(), map[string]any{"thread": "t", "prompt": "p", "body": "b"}, nil)
	shaped(t, "Resolution.Collect with a failing summarizer", err, starhost.ErrPointFailed)
}
