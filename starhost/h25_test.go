package starhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/internal/testkit/hostkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/toolwire"
)

// sessionsPlugin answers with the facts of the session it serves and puts
// them on the status line; its timer sets a host-wide field.
const sessionsPlugin = `
def who(ctx, args):
    ctx.status.set("who", ctx.session_id)
    return "%s %s" % (ctx.session_id, ctx.mode)

def planned(ctx, args):
    return "plan-only " + ctx.session_id

def tick(ctx):
    ctx.status.set("beat", "beat")

contribute(
    tools = [
        tool(name = "who", description = "Who is served.", parameters = {"type": "object"}, catalogs = "plan_and_work", read_only = True, run = who),
        tool(name = "planned", description = "A plan-only tool.", parameters = {"type": "object"}, catalogs = "plan", read_only = True, run = planned),
    ],
    status_fields = [status_field(name = "who", description = "The session served"), status_field(name = "beat", description = "Host-wide")],
    timers = [timer(every = "1s", run = tick)],
)
`

// sessionsHost starts a host over sessionsPlugin with both fields on the
// operator's line and a manual clock.
func sessionsHost(t testing.TB, opts starhost.Options) (*starhost.Host, *starhost.ManualClock, string) {
	t.Helper()
	clock := starhost.NewManualClock()
	opts.Clock = clock
	if opts.Isolation == "" {
		opts.Isolation = os.Getenv("CRYSTAL_ISOLATION") // .ci/run runs them again with every plugin in a worker
	}
	h, dir := statusHost(t, "sessions", sessionsPlugin, opts)
	return h, clock, dir
}

// statusHost starts a host over the development plugin acme.<name> whose
// plugin.star is source, with the fields who and beat on the operator's
// line and every call approved unless opts says otherwise; it returns the
// host and the plugin's directory.
func statusHost(t testing.TB, name, source string, opts starhost.Options) (*starhost.Host, string) {
	t.Helper()
	ws := t.TempDir()
	home := filepath.Join(ws, "home")
	testkit.WriteTree(t, home, map[string]string{"config.toml": "status_line = [\"who\", \"beat\"]\n"})
	dir := filepath.Join(ws, "dev", name)
	testkit.WriteTree(t, dir, map[string]string{"plugin.toml": "id = \"acme." + name + "\"\nversion = \"1.0.0\"\n", "plugin.star": source})
	opts.Home, opts.Workspace, opts.Dev = home, ws, []string{dir}
	if opts.Points.Approve == nil {
		opts.Points.Approve = func(context.Context, starhost.ApprovalRequest) starhost.Approval {
			return starhost.Approval{Approved: true}
		}
	}
	h, _ := hostkit.Start(t, opts)
	return h, dir
}

func newSession(t testing.TB, h *starhost.Host, id, mode string) *starhost.Session {
	t.Helper()
	s, err := h.NewSession(context.Background(), starhost.SessionOptions{Facts: starhost.Facts{SessionID: id, Mode: mode}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func call(s *starhost.Session, tool string) starhost.ToolResult {
	return s.Thread("").Dispatch(context.Background(), starhost.ToolCall{ID: "c", Name: tool}, nil).Result
}

// TestH25_1_HostIsWorkspaceWideAndHandlesCarryTheScope: Host keeps at most
// 25 exported methods, and no method of Host, Session or Thread takes a
// thread or session id as a string: the handle carries it.
func TestH25_1_HostIsWorkspaceWideAndHandlesCarryTheScope(t *testing.T) {
	if n := reflect.TypeOf(&starhost.Host{}).NumMethod(); n > 25 {
		t.Errorf("Host has %d exported methods, want at most 25", n)
	}
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range pkgs["starhost"].Files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !fn.Name.IsExported() {
				continue
			}
			star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			id, _ := star.X.(*ast.Ident)
			if id == nil || id.Name != "Host" && id.Name != "Session" && id.Name != "Thread" {
				continue
			}
			recv := id.Name
			if false {
				continue
			}
			for _, p := range fn.Type.Params.List {
				typ, _ := p.Type.(*ast.Ident)
				for _, name := range p.Names {
					switch name.Name {
					case "thread", "parent", "session", "sessionID":
						if typ != nil && typ.Name == "string" {
							t.Errorf("%s.%s takes %s as a string; a handle should carry it", recv, fn.Name.Name, name.Name)
						}
					}
				}
			}
		}
	}
}

// TestH25_2_FactsFollowTheSession: one session's SetFacts is never another
// session's: a plan session keeps its plan-only tool while a work session
// changes its own facts, and each call's ctx carries its session's facts.
func TestH25_2_FactsFollowTheSession(t *testing.T) {
	h, _, _ := sessionsHost(t, starhost.Options{})
	plan, work := newSession(t, h, "p", starhost.PlanMode), newSession(t, h, "w", "work")
	work.SetFacts(starhost.Facts{SessionID: "w", Mode: "work", ApprovalMode: "auto"})
	if res := call(plan, "planned"); res.Text != "plan-only p" {
		t.Errorf("plan session's plan-only tool: %+v", res)
	}
	if res := call(work, "planned"); res.Error == nil || res.Error.Code != starhost.ErrUnknownTool {
		t.Errorf("work session's call of a plan-only tool: %+v, want unknown_tool", res)
	}
	if a, b := call(plan, "who").Text, call(work, "who").Text; a != "p plan" || b != "w work" {
		t.Errorf("who = %q and %q, want each session's facts", a, b)
	}
	// A snapshot taken through a thread serves that thread's session.
	if got := plan.Thread("t").Tools(context.Background(), starhost.Plan).Invoke(context.Background(), "who", nil).Text; got != "p plan" {
		t.Errorf("snapshot of the plan session: %q", got)
	}
}

// TestH25_2_StatusValuesBelongToTheirSession: a value a callback sets while
// serving a session shows on that session's line only; one set where no
// session is served (a timer) is host-wide and shows on every line.
func TestH25_2_StatusValuesBelongToTheirSession(t *testing.T) {
	if os.Getenv("CRYSTAL_ISOLATION") == "process" {
		t.Skip("the host's manual clock does not reach a worker, whose timers run on the real clock; TestH25_2_WorkerStatusValuesFollowTheSession is this rule in workers")
	}
	h, clock, _ := sessionsHost(t, starhost.Options{})
	a, b := newSession(t, h, "a", "work"), newSession(t, h, "b", "work")
	call(a, "who")
	if la, lb := a.StatusLine(), b.StatusLine(); la != "a" || lb != "" {
		t.Errorf("after a's call: a %q, b %q; want a's value on a's line only", la, lb)
	}
	call(b, "who")
	clock.Advance(time.Second) // the timer serves no session
	la, lb := a.StatusLine(), b.StatusLine()
	if !strings.HasPrefix(la, "a") || !strings.HasPrefix(lb, "b") || !strings.Contains(la, "beat") || !strings.Contains(lb, "beat") {
		t.Errorf("after the timer: a %q, b %q; want each session's who and the host-wide beat on both", la, lb)
	}
	a.End(context.Background())
	if lb := b.StatusLine(); !strings.HasPrefix(lb, "b") {
		t.Errorf("b's line after a ended: %q", lb)
	}
}

// TestH25_3_ManySessionsMixedModesWhileReloading: 8 goroutines dispatch
// across 200 sessions, half in plan mode, while the plugin reloads: no call
// is answered with another session's facts or mode, and at the end each
// session's line shows its own value only.
func TestH25_3_ManySessionsMixedModesWhileReloading(t *testing.T) {
	const sessions, workers, rounds, reloads = 200, 8, 25, 10
	h, _, dir := sessionsHost(t, starhost.Options{})
	all := make([]*starhost.Session, sessions)
	for i := range all {
		mode := "work"
		if i%2 == 0 {
			mode = starhost.PlanMode
		}
		all[i] = newSession(t, h, fmt.Sprintf("s%d", i), mode)
	}
	var wrong atomic.Int64
	var first sync.Once
	check := func(s *starhost.Session) {
		f := s.Facts()
		want := f.SessionID + " " + f.Mode
		if got := call(s, "who"); got.Text != want {
			wrong.Add(1)
			first.Do(func() { t.Errorf("session %s: who = %+v, want %q", f.SessionID, got, want) })
		}
		planned := call(s, "planned")
		if f.Mode == starhost.PlanMode && planned.Text != "plan-only "+f.SessionID ||
			f.Mode != starhost.PlanMode && (planned.Error == nil || planned.Error.Code != starhost.ErrUnknownTool) {
			wrong.Add(1)
			first.Do(func() { t.Errorf("session %s (%s): planned = %+v", f.SessionID, f.Mode, planned) })
		}
	}
	done := make(chan struct{})
	reloaded := make(chan error, 1)
	go func() {
		for i := range reloads {
			testkit.WriteTree(t, dir, map[string]string{"plugin.star": sessionsPlugin + fmt.Sprintf("# %d\n", i)})
			if err := h.Reload(context.Background(), dir); err != nil {
				reloaded <- err
				return
			}
		}
		reloaded <- nil
	}()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				for i := w; i < sessions; i += workers {
					check(all[(i+r)%sessions])
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	if err := <-reloaded; err != nil {
		t.Fatal(err)
	}
	for _, s := range all { // after the last reload: each line shows its own session
		check(s)
		// The line is who, then beat once a timer ticked: a worker's
		// timer follows the real clock, not the test's (host-wide).
		line, id := s.StatusLine(), s.Facts().SessionID
		if who, beat, _ := strings.Cut(line, " · "); who != id || beat != "" && beat != "beat" {
			wrong.Add(1)
			t.Errorf("session %s's line %q", id, line)
			break
		}
	}
	if n := wrong.Load(); n != 0 {
		t.Fatalf("%d answers or lines from the wrong session", n)
	}
}

// inotifyInstances counts this process's inotify descriptors.
func inotifyInstances(t testing.TB) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, e := range entries {
		if target, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); strings.Contains(target, "inotify") {
			n++
		}
	}
	return n
}

// TestH25_3_ThousandSessionsAreCheap: 1,000 sessions on one watching host
// open no watcher and compile nothing (no lifecycle event), and an idle
// session holds at most 64 KiB of heap.
func TestH25_3_ThousandSessionsAreCheap(t *testing.T) {
	var events atomic.Int64
	h, _, _ := sessionsHost(t, starhost.Options{Events: func(starhost.Event) { events.Add(1) }})
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	watched := make(chan error, 1)
	go func() { watched <- h.Watch(ctx, func() { close(ready) }) }()
	<-ready
	defer func() { cancel(); <-watched }()
	instances, before := inotifyInstances(t), events.Load()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	all := make([]*starhost.Session, 1000)
	for i := range all {
		all[i] = newSession(t, h, fmt.Sprintf("s%d", i), "work")
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if n := inotifyInstances(t); n != instances {
		t.Errorf("inotify instances %d → %d with 1,000 sessions; want one watcher whatever the sessions", instances, n)
	}
	if n := events.Load() - before; n != 0 {
		t.Errorf("%d lifecycle events while creating sessions; want no compile, no activation", n)
	}
	if per := (int64(m1.HeapAlloc) - int64(m0.HeapAlloc)) / int64(len(all)); per > 64<<10 {
		t.Errorf("an idle session holds %d bytes of heap, want at most 64 KiB", per)
	}
	runtime.KeepAlive(all)
}

// TestH25_3_WatchFailureIsReported: when no watcher can be had, Watch calls
// ready (a caller waiting on it goes on), returns WatchFailed, and the host
// says once that it serves without hot reload; it keeps serving.
func TestH25_3_WatchFailureIsReported(t *testing.T) {
	var notes testkit.Log[starhost.Note]
	h, _, dir := sessionsHost(t, starhost.Options{Notes: notes.Add})
	s := newSession(t, h, "s", "work")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // a watcher that started ends here
	defer cancel()
	restore := exhaustDescriptors(t)
	var readied atomic.Int64
	err1 := h.Watch(ctx, func() { readied.Add(1) })
	err2 := h.Watch(ctx, func() { readied.Add(1) })
	restore()
	for _, err := range []error{err1, err2} {
		if !errors.Is(err, starhost.Code("WatchFailed")) {
			t.Fatalf("Watch = %v, want WatchFailed", err)
		}
	}
	if readied.Load() != 2 {
		t.Errorf("ready called %d times, want once per Watch", readied.Load())
	}
	n := 0
	for _, note := range notes.All() {
		if note.Code == "WatchFailed" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d WatchFailed notes, want one: %v", n, notes.All())
	}
	testkit.WriteTree(t, dir, map[string]string{"plugin.star": sessionsPlugin + "# saved\n"})
	if err := h.Reload(context.Background(), dir); err != nil || call(s, "who").Text != "s work" {
		t.Fatalf("without a watcher: reload %v, who %q", err, call(s, "who").Text)
	}
}

// blockingModels is a model provider whose replies wait for release: a
// plugin call that asks the model stays on its generation until then.
type blockingModels struct{ entered, release chan struct{} }

func (m blockingModels) NewClient(context.Context, starhost.ClientSpec) (starhost.ModelClient, error) {
	return m, nil
}

func (m blockingModels) Complete(ctx context.Context, _ starhost.ModelRequest) (starhost.ModelReply, error) {
	m.entered <- struct{}{}
	<-m.release
	return starhost.ModelReply{Text: "answer"}, nil
}

// TestH25_7_ReloadReturnsBeforeTheOldGenerationDrains: a reload returns
// once the new generation serves while a call still runs on the old one;
// the old one's end arrives through Subscribe (Change.Retired).
func TestH25_7_ReloadReturnsBeforeTheOldGenerationDrains(t *testing.T) {
	models := blockingModels{entered: make(chan struct{}, 1), release: make(chan struct{})}
	ws := t.TempDir()
	dir := filepath.Join(ws, "dev", "ask")
	star := "def ask(ctx, args):\n    return ctx.models.session.complete(\"q\")\n\ncontribute(tools = [tool(name = \"ask\", description = \"Ask.\", parameters = {\"type\": \"object\"}, catalogs = \"work\", run = ask)])\n"
	testkit.WriteTree(t, dir, map[string]string{"plugin.toml": "id = \"acme.ask\"\nversion = \"1.0.0\"\ncapabilities = [\"models\"]\n", "plugin.star": star})
	h, _ := hostkit.Start(t, starhost.Options{Workspace: ws, Dev: []string{dir}, Models: models, CleanupTimeout: time.Minute,
		Defaults: starhost.SessionOptions{Model: &starhost.ModelFacts{Provider: "acme", Protocol: "acme", Model: "m"}}})
	retired := make(chan string, 4)
	defer h.Subscribe(func(c starhost.Change) {
		if c.Retired != "" {
			retired <- c.Retired
		}
	})()
	s := newSession(t, h, "s", "work")
	done := make(chan starhost.ToolResult, 1)
	go func() {
		done <- s.Thread("").Tools(context.Background(), starhost.Work).Invoke(context.Background(), "ask", nil)
	}()
	select {
	case <-models.entered: // the call runs on g1
	case res := <-done:
		t.Fatalf("the call ended before asking the model: %+v", res)
	}
	testkit.WriteTree(t, dir, map[string]string{"plugin.star": star + "# g2\n"})
	if err := h.Reload(context.Background(), dir); err != nil { // returns with g1's call still running
		t.Fatal(err)
	}
	select {
	case r := <-retired:
		t.Fatalf("%s retired before its call ended", r)
	default:
	}
	close(models.release)
	if res := <-done; res.Text != "answer" {
		t.Errorf("g1's call: %+v", res)
	}
	if r := <-retired; r != "acme.ask@g1" {
		t.Errorf("retired %q, want acme.ask@g1", r)
	}
}

// TestH25_7_AssemblePromptIsTheCallersCopy: changing the prompt returned
// changes nothing the host captured.
func TestH25_7_AssemblePromptIsTheCallersCopy(t *testing.T) {
	h, _, _ := sessionsHost(t, starhost.Options{Points: starhost.PointDefaults{Sections: map[string]string{starhost.TargetIdentity: "identity"}}})
	th := newSession(t, h, "s", "work").Thread("t")
	p := th.AssemblePrompt(context.Background())
	p.Text = "changed"
	if len(p.Sections) > 0 {
		p.Sections[0].Text = "changed"
	}
	if again := th.AssemblePrompt(context.Background()); again.Text == "changed" || len(again.Sections) > 0 && again.Sections[0].Text == "changed" {
		t.Errorf("the host's captured prompt changed with the caller's copy: %+v", again)
	}
}

// TestH25_6_AnswerGlue: a dispatch result as an OpenAI tool message and as
// an Anthropic tool_result block.
func TestH25_6_AnswerGlue(t *testing.T) {
	ok := starhost.DispatchResult{Call: starhost.ToolCall{ID: "call-1", Name: "who"}, Result: starhost.ToolResult{Text: "s work"}}
	failed := starhost.DispatchResult{Call: starhost.ToolCall{ID: "toolu_2", Name: "x"},
		Result: starhost.ToolResult{Error: &starhost.ToolError{Code: "unknown_tool", Message: "no x"}}}
	for _, c := range []struct {
		got  any
		want string
	}{
		{toolwire.ToolMessageForOpenAI(ok), `{"role":"tool","tool_call_id":"call-1","content":"s work"}`},
		{toolwire.ToolResultForAnthropic(ok), `{"type":"tool_result","tool_use_id":"call-1","content":"s work"}`},
		{toolwire.ToolResultForAnthropic(failed), `{"type":"tool_result","tool_use_id":"toolu_2","content":"unknown_tool: no x","is_error":true}`},
	} {
		if b, _ := json.Marshal(c.got); string(b) != c.want {
			t.Errorf("got %s\nwant %s", b, c.want)
		}
	}
}

// TestH25_2_StoreExampleOfAPIDoc runs the ctx.store example of docs/api.md
// in two sessions: the store is the plugin's, the keys keep the sessions
// apart, and each count shows on its own session's line.
func TestH25_2_StoreExampleOfAPIDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "### ctx.store\n")
	_, code, _ := strings.Cut(section, "```python\n")
	code, _, _ = strings.Cut(code, "```")
	if !strings.Contains(code, "ctx.session_id") {
		t.Fatalf("no example keyed by session in docs/api.md's ctx.store section: %q", code)
	}
	ws := t.TempDir()
	dir := filepath.Join(ws, "dev", "count")
	testkit.WriteTree(t, dir, map[string]string{"plugin.toml": "id = \"acme.count\"\nversion = \"1.0.0\"\n",
		"plugin.star": code + `contribute(tools = [tool(name = "count", description = "Count.", parameters = {"type": "object"}, catalogs = "work", run = count)],
    status_fields = [status_field(name = "calls", description = "Calls")])
`})
	h, _ := hostkit.Start(t, starhost.Options{Workspace: ws, Dev: []string{dir},
		Points: starhost.PointDefaults{Approve: func(context.Context, starhost.ApprovalRequest) starhost.Approval {
			return starhost.Approval{Approved: true}
		}}})
	a, b := newSession(t, h, "a", "work"), newSession(t, h, "b", "work")
	got := []string{toolwire.ResultText(call(a, "count")), toolwire.ResultText(call(a, "count")), toolwire.ResultText(call(b, "count"))}
	if strings.Join(got, " ") != "1 2 1" {
		t.Errorf("counts %v, want 1 2 1: one counter per session in the plugin's store", got)
	}
	line := []string{"calls"}
	if la, lb := a.RenderStatusLine(line), b.RenderStatusLine(line); la != "2 calls" || lb != "1 calls" {
		t.Errorf("lines a %q, b %q", la, lb)
	}
}
