package lifecycle

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// fakeActivator stands in for the Starlark activator. It reads the entry
// file from the bundle snapshot: "SYNTAX" makes Compile fail, "FAIL" makes
// Activate fail with an ActivationError and "PANIC_ERR" with a plain error.
// Every other bundle activates with one tool, tool_<id>, whose result is the
// generation id.
type fakeActivator struct {
	mu        sync.Mutex
	compiled  []string
	activated []string
	closed    []string
	requests  map[string]contrib.ActivationRequest // last Activate per plugin
	// plainCompileErr makes a failing Compile return a non-ActivationError.
	plainCompileErr bool
}

// entry reads the entry file from the snapshot, never from disk (DC23).
func (a *fakeActivator) entry(req contrib.ActivationRequest) string {
	data, err := fs.ReadFile(req.Bundle, req.Entry)
	if err != nil {
		return ""
	}
	return string(data)
}

func (a *fakeActivator) Compile(req contrib.ActivationRequest) error {
	a.mu.Lock()
	a.compiled = append(a.compiled, req.Plugin)
	plain := a.plainCompileErr
	a.mu.Unlock()
	if !strings.Contains(a.entry(req), "SYNTAX") {
		return nil
	}
	if plain {
		return errors.New("compiler crashed")
	}
	return &contrib.ActivationError{Compile: true, Diagnostics: []contrib.Diagnostic{
		contrib.Diag(contrib.SyntaxError, req.Plugin, contrib.Pos{File: req.SourceRoot + "/" + req.Entry, Line: 1, Col: 1}, "got identifier, want newline"),
	}}
}

func toolName(id string) string { return "tool_" + strings.NewReplacer(".", "_", "-", "_").Replace(id) }

func (a *fakeActivator) Activate(ctx context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	a.mu.Lock()
	a.activated = append(a.activated, req.Plugin)
	if a.requests == nil {
		a.requests = map[string]contrib.ActivationRequest{}
	}
	a.requests[req.Plugin] = req
	a.mu.Unlock()
	src := a.entry(req)
	switch {
	case strings.Contains(src, "PANIC_ERR"):
		return nil, errors.New("module blew up")
	case strings.Contains(src, "FAIL"):
		return nil, &contrib.ActivationError{Diagnostics: []contrib.Diagnostic{
			contrib.Diag(contrib.ExecutionFailed, req.Plugin, contrib.Pos{File: req.SourceRoot + "/" + req.Entry, Line: 2, Col: 1}, "fail: broken"),
		}}
	}
	st := contrib.NewStaging(req.Plugin, req.Rules)
	gen := req.Generation
	st.AddTool(contrib.Tool{Name: toolName(req.Plugin), Catalogs: contrib.PlanAndWork,
		Run: contrib.ToolFunc(func(context.Context, any) contrib.Result { return contrib.Result{Text: gen} })})
	exports := map[string]any{}
	for _, e := range req.Exports {
		exports[e] = e + "@" + gen
	}
	return &fakeInstance{act: a, id: req.Plugin, set: st.Set(), exports: exports}, nil
}

func (a *fakeActivator) snapshot() (compiled, activated, closed []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.compiled), slices.Clone(a.activated), slices.Clone(a.closed)
}

func (a *fakeActivator) request(id string) contrib.ActivationRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.requests[id]
}

type fakeInstance struct {
	act     *fakeActivator
	id      string
	set     *contrib.Set
	exports map[string]any
	once    sync.Once
}

func (i *fakeInstance) Set() *contrib.Set       { return i.set }
func (i *fakeInstance) Exports() map[string]any { return i.exports }
func (i *fakeInstance) Attach(context.Context, contrib.AttachStage) (bool, error) {
	return false, nil
}
func (i *fakeInstance) Close() {
	i.once.Do(func() {
		i.act.mu.Lock()
		i.act.closed = append(i.act.closed, i.id)
		i.act.mu.Unlock()
	})
}

// noteServices records the notes a manager delivers.
type noteServices = testkit.Services[contrib.Diagnostic, contrib.Facts]

type harness struct {
	t      *testing.T
	root   string
	act    *fakeActivator
	reg    *contrib.Registry
	m      *Manager
	mu     sync.Mutex
	events []Event
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, root: t.TempDir(), act: &fakeActivator{}, reg: contrib.NewRegistry(contrib.RegistryOptions{})}
	h.m = NewManager(Options{
		Roots:     []Root{{Dir: h.root, Source: contrib.SourceDev}},
		Activator: h.act,
		Registry:  h.reg,
		Services:  &noteServices{},
		Events: func(e Event) {
			h.mu.Lock()
			h.events = append(h.events, e)
			h.mu.Unlock()
		},
	})
	t.Cleanup(func() { h.m.Close(context.Background()) })
	return h
}

func (h *harness) dir(name string) string { return filepath.Join(h.root, name) }

func (h *harness) plugin(id string) Projection {
	h.t.Helper()
	for _, p := range h.m.Plugins() {
		if p.ID == id {
			return p
		}
	}
	h.t.Fatalf("no plugin %s in %+v", id, h.m.Plugins())
	return Projection{}
}

func (h *harness) kinds(id string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.events {
		if e.Plugin == id {
			out = append(out, e.Kind)
		}
	}
	return out
}

func (h *harness) setSource(name, src string) {
	testkit.WriteTree(h.t, h.dir(name), map[string]string{"plugin.star": src})
}

func hasCode(ds []contrib.Diagnostic, code contrib.Code) bool {
	return slices.ContainsFunc(ds, func(d contrib.Diagnostic) bool { return d.Code == code })
}

func invoke(snap *contrib.ToolSnapshot, name string) contrib.Result {
	return snap.Invoke(context.Background(), name, nil)
}

func TestAT3_CompileErrorKeepsActiveGeneration(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	testkit.Plugin{ID: "acme.x"}.Write(t, h.dir("acme"))
	h.m.Start(ctx)
	before := h.plugin("acme.x")
	if before.State != Active || before.Generation == "" {
		t.Fatalf("after Start: %+v", before)
	}
	snap := h.reg.Tools(contrib.Work)
	if res := invoke(snap, "tool_acme_x"); res.Text != before.Generation {
		t.Fatalf("tool: %+v", res)
	}

	h.setSource("acme", "contribute(\nSYNTAX error\n")
	var ae *contrib.ActivationError
	if err := h.m.Reload(ctx, h.dir("acme")); !errors.As(err, &ae) || !hasCode(ae.Diagnostics, contrib.SyntaxError) {
		t.Fatalf("Reload = %v, want the attempt's SyntaxError as an *contrib.ActivationError", err)
	}
	after := h.plugin("acme.x")
	if after.State != Active || after.Generation != before.Generation {
		t.Fatalf("after a compile error: state %s gen %s, want active %s", after.State, after.Generation, before.Generation)
	}
	if !hasCode(after.Diagnostics, contrib.SyntaxError) {
		t.Errorf("diagnostics %v lack the SyntaxError", after.Diagnostics)
	}
	if res := invoke(snap, "tool_acme_x"); res.Text != before.Generation {
		t.Errorf("the old generation stopped answering: %+v", res)
	}
	if _, activated, closed := h.act.snapshot(); len(activated) != 1 || len(closed) != 0 {
		t.Errorf("activated %v closed %v; the live generation must be untouched", activated, closed)
	}
	if k := h.kinds("acme.x"); !slices.Contains(k, "kept") {
		t.Errorf("events %v lack kept", k)
	}

	// Fixing the source replaces the generation and clears the diagnostic.
	h.setSource("acme", "contribute()  # fixed\n")
	if err := h.m.Reload(ctx, h.dir("acme")); err != nil {
		t.Errorf("Reload of the fixed source = %v, want nil", err)
	}
	fixed := h.plugin("acme.x")
	if fixed.State != Active || fixed.Generation == before.Generation || hasCode(fixed.Diagnostics, contrib.SyntaxError) {
		t.Errorf("after the fix: %+v", fixed)
	}
}

// Start's error is the context's, never a plugin's: a plugin that fails to
// compile is a projection, a start whose context ended is an error.
func TestStartFailsOnlyWithItsContext(t *testing.T) {
	h := newHarness(t)
	testkit.Plugin{ID: "acme.x", Version: "1.0.0"}.Write(t, h.dir("acme"))
	h.setSource("acme", "SYNTAX")
	if err := h.m.Start(context.Background()); err != nil {
		t.Errorf("Start with a faulted plugin = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := newHarness(t).m.Start(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Start with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestAT3_CompileErrorOnFirstActivationFaults(t *testing.T) {
	h := newHarness(t)
	testkit.Plugin{ID: "acme.x"}.Write(t, h.dir("acme"))
	h.setSource("acme", "SYNTAX")
	h.m.Start(context.Background())
	p := h.plugin("acme.x")
	if p.State != Faulted || p.Generation != "" || !hasCode(p.Diagnostics, contrib.SyntaxError) {
		t.Errorf("projection = %+v, want faulted with the SyntaxError", p)
	}
	if _, activated, _ := h.act.snapshot(); len(activated) != 0 {
		t.Errorf("a module that does not compile was executed")
	}
}

func TestAT3_UnchangedFingerprintIsNoOp(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	testkit.Plugin{ID: "acme.x"}.Write(t, h.dir("acme"))
	h.m.Start(ctx)
	first := h.plugin("acme.x")
	snap := h.reg.Tools(contrib.Work)

	h.setSource("acme", "contribute()\n") // same bytes, new mtime
	for range 2 {
		if err := h.m.Reload(ctx, h.dir("acme")); err != nil {
			t.Errorf("Reload of unchanged content = %v, want nil (a no-op is no failure)", err)
		}
	}
	again := h.plugin("acme.x")
	if again.Generation != first.Generation || again.State != Active || again.Fingerprint != first.Fingerprint {
		t.Fatalf("reloading unchanged source: %+v, want generation %s", again, first.Generation)
	}
	compiled, activated, closed := h.act.snapshot()
	if len(compiled) != 1 || len(activated) != 1 || len(closed) != 0 {
		t.Errorf("compiled %v activated %v closed %v; want one of each, nothing closed", compiled, activated, closed)
	}
	if k := h.kinds("acme.x"); !slices.Contains(k, "unchanged") {
		t.Errorf("events %v lack unchanged", k)
	}

	// A real change is a new generation; it replaces the old one, which
	// drains (AT2), and the old snapshot follows the tool to it.
	h.setSource("acme", "contribute()  # v2\n")
	h.m.Reload(ctx, h.dir("acme"))
	changed := h.plugin("acme.x")
	if changed.Generation == first.Generation || changed.Fingerprint == first.Fingerprint || changed.State != Active {
		t.Errorf("after a change: %+v", changed)
	}
	if res := invoke(snap, "tool_acme_x"); res.Text != changed.Generation {
		t.Errorf("old snapshot after reload: %+v, want generation %s", res, changed.Generation)
	}
	if res := invoke(h.reg.Tools(contrib.Work), "tool_acme_x"); res.Text != changed.Generation {
		t.Errorf("new snapshot answered %+v, want generation %s", res, changed.Generation)
	}
	if _, _, closed := h.act.snapshot(); !slices.Equal(closed, []string{"acme.x"}) {
		t.Errorf("closed %v, want the first generation closed", closed)
	}
	if err := h.m.Reload(ctx, filepath.Join(h.root, "nope")); !errors.Is(err, ErrUnknownPlugin) {
		t.Errorf("Reload of an unknown directory = %v, want ErrUnknownPlugin", err)
	}
}

// TestAT3_ExecutionFailureKeepsServing: a next generation that fails while
// executing (a top-level run-time error, a plain error) replaces nothing: the
// previous generation keeps serving, with the failed attempt's diagnostics
// and a kept event. Only a plugin with nothing serving is faulted.
func TestAT3_ExecutionFailureKeepsServing(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	testkit.Plugin{ID: "acme.x"}.Write(t, h.dir("acme"))
	testkit.Plugin{ID: "acme.boom"}.Write(t, h.dir("boom"))
	h.setSource("boom", "PANIC_ERR")
	h.m.Start(ctx)

	boom := h.plugin("acme.boom")
	if boom.State != Faulted || !hasCode(boom.Diagnostics, contrib.ExecutionFailed) {
		t.Errorf("plain activation error: %+v, want faulted with ExecutionFailed", boom)
	}
	if p := h.plugin("acme.x"); p.State != Active {
		t.Fatalf("one bad plugin stopped another: %+v", p)
	}

	snap := h.reg.Tools(contrib.Work)
	for _, src := range []string{"FAIL at top level\n", "PANIC_ERR\n"} {
		h.setSource("acme", src)
		h.m.Reload(ctx, h.dir("acme"))
		p := h.plugin("acme.x")
		if p.State != Active || p.Generation != "g1" {
			t.Fatalf("after an execution failure (%q): state %s gen %q, want g1 still active", src, p.State, p.Generation)
		}
		if !hasCode(p.Diagnostics, contrib.ExecutionFailed) {
			t.Errorf("diagnostics %v lack ExecutionFailed", p.Diagnostics)
		}
		if res := invoke(snap, "tool_acme_x"); res.Text != "g1" {
			t.Errorf("old snapshot: %+v, want g1 serving", res)
		}
	}
	if k := h.kinds("acme.x"); !slices.Equal(k, []string{"activated", "kept", "kept"}) {
		t.Errorf("events %v, want activated, kept, kept", k)
	}
	if _, _, closed := h.act.snapshot(); len(closed) != 0 {
		t.Errorf("closed %v, want the serving generation untouched", closed)
	}

	// The next save that works replaces it.
	h.setSource("acme", "contribute()  # fixed\n")
	h.m.Reload(ctx, h.dir("acme"))
	if p := h.plugin("acme.x"); p.State != Active || p.Generation == "g1" || hasCode(p.Diagnostics, contrib.ExecutionFailed) {
		t.Errorf("after the fix: %+v", p)
	}
	if res := invoke(snap, "tool_acme_x"); !res.OK() || res.Text == "g1" {
		t.Errorf("snapshot taken before the reload: %+v, want the new generation", res)
	}
}

// TestAT3_DependencyBlockerOnReloadKeepsServing: a new manifest that asks
// for a dependency nobody provides is a failure of the next generation, not
// a reason to stop what serves.
func TestAT3_DependencyBlockerOnReloadKeepsServing(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	testkit.Plugin{ID: "acme.x"}.Write(t, h.dir("acme"))
	h.m.Start(ctx)
	testkit.Plugin{ID: "acme.x", Version: "1.1.0", Manifest: "[dependencies]\n\"acme.missing\" = \"1.0.0\"\n"}.Write(t, h.dir("acme"))
	h.m.Reload(ctx, h.dir("acme"))
	p := h.plugin("acme.x")
	if p.State != Active || p.Generation != "g1" || p.Version != "1.0.0" {
		t.Fatalf("after a reload with a missing dependency: %s %s %s, want 1.0.0 g1 active", p.State, p.Generation, p.Version)
	}
	if !hasCode(p.Diagnostics, contrib.PluginDependencyUnsatisfied) {
		t.Errorf("diagnostics %v lack PluginDependencyUnsatisfied", p.Diagnostics)
	}
}

func TestDC13_ProvidersActivateBeforeConsumers(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	// The consumer's directory sorts first, so it comes first in load order.
	testkit.Plugin{ID: "acme.consumer", Manifest: "[dependencies]\n\"acme.provider\" = \"1.2.0\"\n"}.Write(t, h.dir("a-consumer"))
	testkit.Plugin{ID: "acme.provider", Version: "1.4.0", Manifest: "exports = [\"svc\"]\n"}.Write(t, h.dir("b-provider"))
	h.m.Start(ctx)

	if ps := h.m.Plugins(); ps[0].ID != "acme.consumer" {
		t.Fatalf("load order starts with %s", ps[0].ID)
	}
	_, activated, _ := h.act.snapshot()
	if !slices.Equal(activated, []string{"acme.provider", "acme.consumer"}) {
		t.Fatalf("activation order %v, want provider first", activated)
	}
	prov, cons := h.plugin("acme.provider"), h.plugin("acme.consumer")
	if prov.State != Active || cons.State != Active {
		t.Fatalf("states: provider %s consumer %s", prov.State, cons.State)
	}
	req := h.act.request("acme.consumer")
	if got := req.Providers["acme.provider"]["svc"]; got != "svc@"+prov.Generation {
		t.Errorf("consumer saw provider exports %v, want svc@%s", req.Providers, prov.Generation)
	}

	// A provider reload replaces the provider, then rebuilds its consumer on
	// the new exports; each previous generation drains after its switch.
	h.setSource("b-provider", "contribute()  # v2\n")
	h.m.Reload(ctx, h.dir("b-provider"))
	_, activated, closed := h.act.snapshot()
	if !slices.Equal(activated[2:], []string{"acme.provider", "acme.consumer"}) || !slices.Equal(closed, []string{"acme.provider", "acme.consumer"}) {
		t.Errorf("reload: activated %v closed %v", activated, closed)
	}
	prov2 := h.plugin("acme.provider")
	if got := h.act.request("acme.consumer").Providers["acme.provider"]["svc"]; got != "svc@"+prov2.Generation {
		t.Errorf("consumer saw %v after reload, want svc@%s", got, prov2.Generation)
	}

	// DC13: providers stop after their consumers.
	h.m.Close(ctx)
	if _, _, closed := h.act.snapshot(); !slices.Equal(closed[2:], []string{"acme.consumer", "acme.provider"}) {
		t.Errorf("close order %v, want consumer before provider", closed)
	}
}

func TestDC15_MissingProviderBlocksConsumer(t *testing.T) {
	h := newHarness(t)
	testkit.Plugin{ID: "acme.orphan", Manifest: "[dependencies]\n\"acme.ghost\" = \"1.0.0\"\n"}.Write(t, h.dir("orphan"))
	testkit.Plugin{ID: "acme.old", Manifest: "[dependencies]\n\"acme.lib\" = \"1.0.0\"\n"}.Write(t, h.dir("old"))
	testkit.Plugin{ID: "acme.lib", Version: "2.1.0"}.Write(t, h.dir("lib"))
	testkit.Plugin{ID: "acme.off", Manifest: "enabled = false\n"}.Write(t, h.dir("off"))
	testkit.Plugin{ID: "acme.user", Manifest: "[dependencies]\n\"acme.off\" = \"1.0.0\"\n"}.Write(t, h.dir("user"))
	h.m.Start(context.Background())

	for id, provider := range map[string]string{"acme.orphan": "acme.ghost", "acme.old": "acme.lib", "acme.user": "acme.off"} {
		p := h.plugin(id)
		if p.State != Blocked || len(p.Blockers) != 1 {
			t.Errorf("%s: state %s blockers %v, want blocked once", id, p.State, p.Blockers)
			continue
		}
		b := p.Blockers[0]
		if b.Code != contrib.PluginDependencyUnsatisfied || !strings.Contains(b.Remedy, provider) || !strings.Contains(b.Message, provider) {
			t.Errorf("%s: blocker %+v, want PluginDependencyUnsatisfied naming %s", id, b, provider)
		}
	}
	if p := h.plugin("acme.lib"); p.State != Active {
		t.Errorf("the provider itself: %s", p.State)
	}
	compiled, activated, _ := h.act.snapshot()
	for _, id := range []string{"acme.orphan", "acme.old", "acme.user", "acme.off"} {
		if slices.Contains(compiled, id) || slices.Contains(activated, id) {
			t.Errorf("blocked plugin %s was compiled or activated", id)
		}
	}
	// Reloading a blocked plugin says why it did not go live.
	var be *BlockedError
	if err := h.m.Reload(context.Background(), h.dir("orphan")); !errors.As(err, &be) || be.Plugin != "acme.orphan" || be.Blockers[0].Code != contrib.PluginDependencyUnsatisfied {
		t.Errorf("Reload of a blocked plugin = %v, want a *BlockedError with its blocker", err)
	}
}

func TestDC15_DependencyCycleBlocks(t *testing.T) {
	h := newHarness(t)
	testkit.Plugin{ID: "acme.a", Manifest: "[dependencies]\n\"acme.b\" = \"1.0.0\"\n"}.Write(t, h.dir("a"))
	testkit.Plugin{ID: "acme.b", Manifest: "[dependencies]\n\"acme.c\" = \"1.0.0\"\n"}.Write(t, h.dir("b"))
	testkit.Plugin{ID: "acme.c", Manifest: "[dependencies]\n\"acme.a\" = \"1.0.0\"\n"}.Write(t, h.dir("c"))
	testkit.Plugin{ID: "acme.d"}.Write(t, h.dir("d"))
	testkit.Plugin{ID: "acme.e", Manifest: "[dependencies]\n\"acme.a\" = \"1.0.0\"\n"}.Write(t, h.dir("e"))
	h.m.Start(context.Background())

	for _, id := range []string{"acme.a", "acme.b", "acme.c"} {
		p := h.plugin(id)
		if p.State != Blocked || len(p.Blockers) == 0 {
			t.Errorf("%s: state %s, want blocked", id, p.State)
			continue
		}
		b := p.Blockers[0]
		if b.Code != contrib.PluginDependencyUnsatisfied || !strings.Contains(b.Message, "cycle") || !strings.Contains(b.Message, id) {
			t.Errorf("%s: blocker %+v, want a cycle through it", id, b)
		}
	}
	// Outside the cycle: e depends on it and is blocked; d runs.
	if p := h.plugin("acme.e"); p.State != Blocked || p.Blockers[0].Code != contrib.PluginDependencyUnsatisfied {
		t.Errorf("acme.e: %+v", p)
	}
	if p := h.plugin("acme.d"); p.State != Active {
		t.Errorf("acme.d: %s, want active", p.State)
	}
	compiled, _, _ := h.act.snapshot()
	if !slices.Equal(compiled, []string{"acme.d"}) {
		t.Errorf("compiled %v, want only acme.d", compiled)
	}
}

func TestDC14_ExportClashBlocksConsumer(t *testing.T) {
	h := newHarness(t)
	testkit.Plugin{ID: "acme.p1", Manifest: "exports = [\"svc\"]\n"}.Write(t, h.dir("p1"))
	testkit.Plugin{ID: "acme.p2", Manifest: "exports = [\"svc\"]\n"}.Write(t, h.dir("p2"))
	testkit.Plugin{ID: "acme.user", Manifest: "[dependencies]\n\"acme.p1\" = \"1.0.0\"\n\"acme.p2\" = \"1.0.0\"\n"}.Write(t, h.dir("user"))
	h.m.Start(context.Background())
	p := h.plugin("acme.user")
	if p.State != Blocked || len(p.Blockers) != 1 || p.Blockers[0].Code != contrib.PluginAPIAssemblyConflict {
		t.Errorf("acme.user: %+v, want blocked with PluginApiAssemblyConflict", p)
	}
}

func TestDC25_ConsumerActivatesOnceProviderFixed(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	testkit.Plugin{ID: "acme.user", Manifest: "[dependencies]\n\"acme.lib\" = \"1.0.0\"\n"}.Write(t, h.dir("a-user"))
	testkit.Plugin{ID: "acme.lib"}.Write(t, h.dir("lib"))
	h.setSource("lib", "FAIL")
	h.m.Start(ctx)
	if p := h.plugin("acme.user"); p.State != Blocked || !strings.Contains(p.Blockers[0].Message, "faulted") {
		t.Fatalf("acme.user: %+v, want blocked by the faulted provider", p)
	}
	h.setSource("lib", "contribute()  # fixed\n")
	h.m.Reload(ctx, h.dir("lib"))
	if p := h.plugin("acme.user"); p.State != Active || len(p.Blockers) != 0 {
		t.Errorf("acme.user after the provider was fixed: %+v", p)
	}
}

func TestAT3_PlainCompileErrorKeepsGeneration(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	testkit.Plugin{ID: "acme.x"}.Write(t, h.dir("acme"))
	h.m.Start(ctx)
	gen := h.plugin("acme.x").Generation
	h.act.mu.Lock()
	h.act.plainCompileErr = true
	h.act.mu.Unlock()
	h.setSource("acme", "SYNTAX")
	h.m.Reload(ctx, h.dir("acme"))
	if p := h.plugin("acme.x"); p.State != Active || p.Generation != gen || len(p.Diagnostics) == 0 {
		t.Errorf("after a plain compile error: %+v, want the generation kept with a diagnostic", p)
	}
}

func TestAT3_CompileErrorLeavesConsumersRunning(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	testkit.Plugin{ID: "acme.user", Manifest: "[dependencies]\n\"acme.lib\" = \"1.0.0\"\n"}.Write(t, h.dir("a-user"))
	testkit.Plugin{ID: "acme.lib"}.Write(t, h.dir("lib"))
	h.m.Start(ctx)
	userGen := h.plugin("acme.user").Generation
	h.setSource("lib", "SYNTAX")
	h.m.Reload(ctx, h.dir("lib"))
	if p := h.plugin("acme.lib"); p.State != Active {
		t.Fatalf("provider: %s", p.State)
	}
	if p := h.plugin("acme.user"); p.State != Active || p.Generation != userGen {
		t.Errorf("consumer: state %s gen %s, want its generation %s untouched by the provider's compile error", p.State, p.Generation, userGen)
	}
}

func TestAT3_RevertClearsCompileDiagnostics(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	testkit.Plugin{ID: "acme.x"}.Write(t, h.dir("acme"))
	h.m.Start(ctx)
	first := h.plugin("acme.x")
	h.setSource("acme", "SYNTAX")
	h.m.Reload(ctx, h.dir("acme"))
	h.setSource("acme", "contribute()\n") // back to the running bytes
	h.m.Reload(ctx, h.dir("acme"))
	p := h.plugin("acme.x")
	if p.Generation != first.Generation {
		t.Fatalf("generation %s, want %s", p.Generation, first.Generation)
	}
	if hasCode(p.Diagnostics, contrib.SyntaxError) {
		t.Errorf("the SyntaxError of source that no longer exists is still reported: %v", p.Diagnostics)
	}
	if p.Fingerprint != first.Fingerprint {
		t.Errorf("fingerprint %s, want the running %s", p.Fingerprint, first.Fingerprint)
	}
}

func TestDC24_BrokenManifestOnReloadIsBlocked(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	testkit.Plugin{ID: "acme.x", Manifest: "[dependencies]\n\"acme.ghost\" = \"1.0.0\"\n"}.Write(t, h.dir("acme"))
	h.m.Start(ctx)
	if p := h.plugin("acme.x"); p.State != Blocked {
		t.Fatalf("acme.x: %s, want blocked by its missing dependency", p.State)
	}
	broken := "id = \"acme.x\"\nversion = \"one\"\n"
	testkit.WriteTree(t, h.dir("acme"), map[string]string{ManifestName: broken})
	h.m.Reload(ctx, h.dir("acme"))
	reloaded := h.plugin("acme.x")

	// The same directory discovered afresh.
	h2 := newHarness(t)
	testkit.Plugin{ID: "acme.x"}.Write(t, h2.dir("acme"))
	testkit.WriteTree(t, h2.dir("acme"), map[string]string{ManifestName: broken})
	h2.m.Start(ctx)
	started := h2.plugin("acme.x") // a manifest naming a valid id lists under it, as after a reload

	if started.State != Blocked || len(started.Blockers) != 1 || started.Blockers[0].Code != contrib.ManifestInvalid {
		t.Fatalf("Start: %+v, want blocked by ManifestInvalid", started)
	}
	if reloaded.State != started.State || len(reloaded.Blockers) != 1 || reloaded.Blockers[0].Code != contrib.ManifestInvalid {
		t.Errorf("Reload: state %s blockers %v; Start gives %s %v for the same files",
			reloaded.State, reloaded.Blockers, started.State, started.Blockers)
	}
}
