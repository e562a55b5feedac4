package contrib

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// answer is an entry that answers text.
func answer(text string) PointFunc {
	return func(context.Context, PointCall) (any, error) { return text, nil }
}

// pass is an entry that answers None.
func pass() PointFunc { return func(context.Context, PointCall) (any, error) { return nil, nil } }

// raise is an entry that fails.
func raise(msg string) PointFunc {
	return func(context.Context, PointCall) (any, error) { return nil, errors.New(msg) }
}

// pointSet stages entries for plugin and fails the test on a diagnostic.
func pointSet(t *testing.T, plugin string, entries ...PointEntry) *Set {
	t.Helper()
	st := NewStaging(plugin, Rules{})
	for _, e := range entries {
		st.AddPoint(e)
	}
	if ds := st.Set().Diagnostics; len(ds) > 0 {
		t.Fatalf("staging %s: %v", plugin, ds)
	}
	return st.Set()
}

// sectionRegistry returns a registry whose prompt_section defaults answer
// their own target name, with notes logged.
func sectionRegistry(log *testkit.Log[Diagnostic]) *Registry {
	var defaults []Default
	for _, t := range LookupPoint(PointPromptSection).Targets {
		defaults = append(defaults, Default{Point: PointPromptSection, Target: t.Name, Run: answer("default " + t.Name)})
	}
	defaults = append(defaults, Default{Point: PointContextTransform, Target: TargetMemory, Run: answer("default memory")})
	return NewRegistry(RegistryOptions{Defaults: defaults, Notes: log.Add})
}

// texts runs a Collect point and returns its answers.
func texts(t *testing.T, r *Registry, point PointName, thread string) []string {
	t.Helper()
	outs, err := r.Resolve(point, thread).Collect(context.Background(), map[string]any{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range outs {
		got = append(got, fmt.Sprint(o.Value))
	}
	return got
}

func TestDC2_TableCoversTheCatalog(t *testing.T) {
	// DC2: every point with the tiers the contract gives it.
	want := map[string]Tier{
		"Tools": tierAppend, "System prompt sections": tierAppend | TierReplace, "System prompt assembler": tierTakeover,
		"Chat context entries": tierAppend, "Thread prompt context": tierAppend,
		"Pre-send context transform": tierAppend | TierReplace, "Chat middleware": tierAppend | TierReplace,
		"Dispatch stage: policy": tierAppend | TierReplace, "Dispatch stage: approval": tierAppend | TierReplace,
		"Dispatch stage: recorder": tierAppend | TierReplace, "Dispatch stage: normalizer": tierAppend | TierReplace,
		"Thread lifecycle": tierAppend, "Turn lifecycle": tierAppend, "Thread runtime signals": tierAppend,
		"Slash commands": tierAppend, "Tool restrictions": tierAppend, "Compaction summary": TierReplace,
		"Compactable tool policy": tierAppend | TierReplace, "Subagent runtime": tierAppend, "Trace sink": tierAppend,
		"Commit-message suggester": TierReplace, "Welcome suggester": TierReplace,
		// MC2: DotCraft reads tool registrations once per tool planning.
		"Tools per planning": tierAppend,
		// Beyond DC2: what plugins publish over MCP (issue 18, docs/mcp.md).
		"MCP resources": tierAppend,
	}
	got := map[string]Tier{}
	keywords, targets := map[string]bool{}, map[string]bool{}
	for _, p := range Points {
		got[p.Title] = p.Tiers
		if keywords[p.Keyword] {
			t.Errorf("keyword %s is used twice", p.Keyword)
		}
		keywords[p.Keyword] = true
		if (p.Tiers&TierReplace != 0) != (len(p.Targets) > 0) {
			t.Errorf("%s: tier B needs named targets and targets need tier B", p.Name)
		}
		if (p.Combine == combineFold) != (p.Failure == orderedFold || p.Failure == authoritative && p.Combine == combineFold) {
			t.Errorf("%s: an ordered-fold policy belongs to a fold", p.Name)
		}
		if p.Signature == "" {
			t.Errorf("%s has no signature", p.Name)
		}
		for _, tg := range p.Targets {
			if targets[tg.Name] {
				t.Errorf("target %s is used twice (its Starlark constant would clash)", tg.Name)
			}
			targets[tg.Name] = true
		}
	}
	for title, tiers := range want {
		if got[title] != tiers {
			t.Errorf("point %q has tiers %q; want %q", title, got[title], tiers)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the table has %d points; DC2 and MC2 have %d", len(got), len(want))
	}
}

func TestDC1_AppendOrderTiesByRegistration(t *testing.T) {
	r := sectionRegistry(&testkit.Log[Diagnostic]{})
	publish(r, "acme.b", "g1", 1, SourceDev, pointSet(t, "acme.b",
		PointEntry{Point: PointPromptSection, Order: 5, Run: answer("b5")},
		PointEntry{Point: PointPromptSection, Order: OrderFirst, Run: answer("b-first")},
		PointEntry{Point: PointPromptSection, Order: 5, Run: answer("b5-second")}))
	publish(r, "acme.a", "g2", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointPromptSection, Order: 5, Run: answer("a5")},
		PointEntry{Point: PointPromptSection, Order: orderResponseStyle, Run: answer("a-at-style")}))
	got := texts(t, r, PointPromptSection, "")
	want := []string{"b-first", "default identity", "default tool_use", "default response_style", "a-at-style",
		"default environment", "a5", "b5", "b5-second"}
	if !slices.Equal(got, want) {
		t.Errorf("sections:\n got %q\nwant %q", got, want)
	}
}

func TestDC1_ReleaseRestoresTheDefaultAtOnce(t *testing.T) {
	r := sectionRegistry(&testkit.Log[Diagnostic]{})
	publish(r, "acme.a", "g1", 0, SourceDev, &Set{Plugin: "acme.a"})
	h, err := r.AddEntry("acme.a", "g1", PointEntry{Point: PointPromptSection, Replace: TargetResponseStyle,
		Scope: ScopeThread, Thread: "t1", Run: answer("terse")})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(t, r, PointPromptSection, "t1"); got[2] != "terse" {
		t.Fatalf("with the replacement: %q", got)
	}
	if !h.Release() {
		t.Fatal("Release reported nothing released")
	}
	if got := texts(t, r, PointPromptSection, "t1"); got[2] != "default response_style" {
		t.Errorf("after release: %q; the default must be back", got)
	}
	if h.Release() {
		t.Error("a second Release reported a release")
	}
}

func TestDC9_ReplacementStandsWhereTheDefaultStood(t *testing.T) {
	r := sectionRegistry(&testkit.Log[Diagnostic]{})
	publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointPromptSection, Replace: TargetIdentity, Order: OrderLast, Run: answer("mine")}))
	res := r.Resolve(PointPromptSection, "")
	e := res.Entries[0]
	if e.Origin != "acme.a" || e.Target != TargetIdentity || !e.Replaced || e.Order != orderIdentity {
		t.Errorf("first entry = %+v; want acme.a replacing identity at its order", e)
	}
}

func TestDC9_NoneSuppressesTheDefault(t *testing.T) {
	r := sectionRegistry(&testkit.Log[Diagnostic]{})
	publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointPromptSection, Replace: TargetToolUse, Run: pass()}))
	got := texts(t, r, PointPromptSection, "")
	if slices.Contains(got, "default tool_use") || len(got) != 3 {
		t.Errorf("sections %q; a None replacement must remove the default", got)
	}
}

func TestDC9_MemoryNoneRestoresTheDefault(t *testing.T) {
	r := sectionRegistry(&testkit.Log[Diagnostic]{})
	publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointContextTransform, Replace: TargetMemory, Run: pass()}))
	if got := texts(t, r, PointContextTransform, ""); !slices.Equal(got, []string{"default memory"}) {
		t.Errorf("memory replaced by None: %q; the default must step back in", got)
	}
	publish(r, "acme.a", "g2", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointContextTransform, Replace: TargetMemory, Run: answer("my memory")}))
	if got := texts(t, r, PointContextTransform, ""); !slices.Equal(got, []string{"my memory"}) {
		t.Errorf("memory replaced: %q", got)
	}
}

func TestDC9_ThreadScopeBeatsWorkspaceScope(t *testing.T) {
	log := &testkit.Log[Diagnostic]{}
	r := sectionRegistry(log)
	publish(r, "acme.a", "g1", 0, SourceDev, &Set{Plugin: "acme.a"})
	if _, err := r.AddEntry("acme.a", "g1", PointEntry{Point: PointPromptSection, Replace: TargetResponseStyle,
		Scope: ScopeThread, Thread: "t1", Run: answer("thread")}); err != nil {
		t.Fatal(err)
	}
	// Registered later, lower order, workspace scope: it still loses in t1.
	publish(r, "acme.b", "g2", 1, SourceDev, pointSet(t, "acme.b",
		PointEntry{Point: PointPromptSection, Replace: TargetResponseStyle, Order: OrderFirst, Run: answer("workspace")}))
	if got := texts(t, r, PointPromptSection, "t1")[2]; got != "thread" {
		t.Errorf("in t1: %q; thread scope must win", got)
	}
	if got := texts(t, r, PointPromptSection, "t2")[2]; got != "workspace" {
		t.Errorf("in t2: %q; the workspace replacement applies elsewhere", got)
	}
	ds := log.Where(coded(ReplaceConflict))
	if len(ds) != 1 || ds[0].Plugin != "acme.b" || !strings.Contains(ds[0].Message, "thread scope beats workspace scope") {
		t.Errorf("ReplaceConflict notes = %v; want one for the loser acme.b", ds)
	}
	texts(t, r, PointPromptSection, "t1")
	if n := len(log.Where(coded(ReplaceConflict))); n != 1 {
		t.Errorf("the conflict was noted %d times; want once", n)
	}
}

func TestDC9_LaterRegistrationWinsNotOrder(t *testing.T) {
	log := &testkit.Log[Diagnostic]{}
	r := sectionRegistry(log)
	a := publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointPromptSection, Replace: TargetResponseStyle, Order: OrderLast, Run: answer("a")}))
	publish(r, "acme.b", "g2", 1, SourceDev, pointSet(t, "acme.b",
		PointEntry{Point: PointPromptSection, Replace: TargetResponseStyle, Order: OrderFirst, Run: answer("b")}))
	if got := texts(t, r, PointPromptSection, "")[2]; got != "b" {
		t.Errorf("workspace: %q; the later registration must win whatever the order", got)
	}
	// The loser has a ReplaceConflict diagnostic; the point still works.
	conflicts := r.View().Conflicts("acme.a")
	if len(conflicts) != 1 || conflicts[0].Code != ReplaceConflict || conflicts[0].Pos != a.Set.Points[0].Pos {
		t.Errorf("conflicts of acme.a = %v", conflicts)
	}
	if len(log.Where(coded(ReplaceConflict))) != 1 {
		t.Errorf("notes = %v", log.All())
	}
	// Thread scope: two runtime entries, the later one wins.
	for _, text := range []string{"first", "second"} {
		if _, err := r.AddEntry("acme.a", "g1", PointEntry{Point: PointPromptSection, Replace: TargetResponseStyle,
			Scope: ScopeThread, Thread: "t1", Order: map[string]int{"first": OrderFirst, "second": OrderLast}[text], Run: answer(text)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := texts(t, r, PointPromptSection, "t1")[2]; got != "second" {
		t.Errorf("thread: %q; want the later registration", got)
	}
}

func TestDC10_TakeoverIsTheLastEntry(t *testing.T) {
	r := sectionRegistry(&testkit.Log[Diagnostic]{})
	publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointPromptAssembler, Order: 10, Run: answer("a takes over")},
		PointEntry{Point: PointPromptAssembler, Order: 1, Run: answer("a early")}))
	publish(r, "acme.b", "g2", 1, SourceDev, pointSet(t, "acme.b",
		PointEntry{Point: PointPromptAssembler, Order: 10, Run: answer("b takes over")}))
	out, ok, err := r.Resolve(PointPromptAssembler, "").Last(context.Background(), nil, nil)
	if err != nil || !ok || out.Value != "b takes over" || out.Entry.Origin != "acme.b" {
		t.Errorf("Last = %v %v %v; want b's takeover (same order, registered later)", out, ok, err)
	}
	for _, bad := range []PointEntry{
		{Point: PointPromptAssembler, Replace: TargetIdentity},
		{Point: PointPromptSection, Replace: "nope"},
		{Point: PointCompactionSummary},
		{Point: PointTools},
	} {
		if CheckPointEntry(bad, true) == nil {
			t.Errorf("%+v passed validation", bad)
		}
	}
}

func TestDC11_ForkedThreadInheritsNoEntries(t *testing.T) {
	r := sectionRegistry(&testkit.Log[Diagnostic]{})
	publish(r, "acme.a", "g1", 0, SourceDev, &Set{Plugin: "acme.a"})
	if _, err := r.AddEntry("acme.a", "g1", PointEntry{Point: PointChatContext, Scope: ScopeThread, Thread: "parent", Run: answer("parent only")}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AddEntry("acme.a", "g1", PointEntry{Point: PointChatContext, Run: answer("everywhere")}); err != nil {
		t.Fatal(err)
	}
	if got := texts(t, r, PointChatContext, "parent"); !slices.Equal(got, []string{"parent only", "everywhere"}) {
		t.Errorf("parent: %q", got)
	}
	if got := texts(t, r, PointChatContext, "fork-of-parent"); !slices.Equal(got, []string{"everywhere"}) {
		t.Errorf("fork: %q; a fork inherits only workspace entries", got)
	}
	r.EndThread("parent")
	if got := texts(t, r, PointChatContext, "parent"); !slices.Equal(got, []string{"everywhere"}) {
		t.Errorf("after the thread ended: %q", got)
	}
}

func TestDC11_OrderMattersOnlyWithinAPoint(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointChatContext, Order: 9, Run: answer("chat 9")},
		PointEntry{Point: PointThreadSignal, Order: 1, Run: answer("signal 1")},
		PointEntry{Point: PointChatContext, Order: 2, Run: answer("chat 2")}))
	if got := texts(t, r, PointChatContext, ""); !slices.Equal(got, []string{"chat 2", "chat 9"}) {
		t.Errorf("chat_context: %q", got)
	}
	if got := texts(t, r, PointThreadSignal, ""); !slices.Equal(got, []string{"signal 1"}) {
		t.Errorf("thread_signal: %q", got)
	}
}

func TestDC11_StaticEntriesHaveNoThread(t *testing.T) {
	st := NewStaging("acme.a", Rules{})
	st.AddPoint(PointEntry{Point: PointChatContext, Scope: ScopeThread, Run: answer("x")})
	st.AddPoint(PointEntry{Point: PointPromptSection, Replace: "respnse_style", Run: answer("x")})
	if got := codes(st.Set().Diagnostics); !slices.Equal(got, []Code{PointEntryInvalid, PointEntryInvalid}) || len(st.Set().Points) != 0 {
		t.Errorf("diagnostics %v, points %d", st.Set().Diagnostics, len(st.Set().Points))
	}
}

func TestDC11_RevocationReleasesRuntimeEntries(t *testing.T) {
	r := sectionRegistry(&testkit.Log[Diagnostic]{})
	publish(r, "acme.a", "g1", 0, SourceDev, &Set{Plugin: "acme.a"})
	if _, err := r.AddEntry("acme.a", "g1", PointEntry{Point: PointChatContext, Scope: ScopeThread, Thread: "t", Run: answer("x")}); err != nil {
		t.Fatal(err)
	}
	r.Revoke("acme.a", "g1")
	publish(r, "acme.a", "g2", 0, SourceDev, &Set{Plugin: "acme.a"})
	if got := texts(t, r, PointChatContext, "t"); len(got) != 0 {
		t.Errorf("after revocation: %q", got)
	}
	if _, err := r.AddEntry("acme.a", "g1", PointEntry{Point: PointChatContext, Run: answer("x")}); err == nil {
		t.Error("a revoked generation added an entry")
	}
}

func TestDC12_InvalidationSignal(t *testing.T) {
	r := sectionRegistry(&testkit.Log[Diagnostic]{})
	var mu sync.Mutex
	var got []Invalidation
	cancel := r.Subscribe(func(inv Invalidation) { mu.Lock(); got = append(got, inv); mu.Unlock() })
	publish(r, "acme.a", "g1", 0, SourceDev, &Set{Plugin: "acme.a"})
	h, err := r.AddEntry("acme.a", "g1", PointEntry{Point: PointToolRestriction, Scope: ScopeThread, Thread: "t1", Run: answer("x")})
	if err != nil {
		t.Fatal(err)
	}
	h.Release()
	cancel()
	r.Revoke("acme.a", "g1")
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("invalidations %v; want publish, add, release (none after cancel)", got)
	}
	if !got[0].Affects(PointPromptSection, "any") || !got[1].Affects(PointToolRestriction, "t1") ||
		got[1].Affects(PointToolRestriction, "t2") || got[1].Affects(PointPromptSection, "t1") || !got[2].Affects(PointToolRestriction, "t1") {
		t.Errorf("invalidations %+v", got)
	}
}

func TestDC12_OperationKeepsItsStartingEntries(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme.a", "g1", 0, SourceDev, &Set{Plugin: "acme.a"})
	var h *Handle
	added := false
	first := func(context.Context, PointCall) (any, error) {
		// Mid-operation: release the next entry and add another.
		h.Release()
		_, err := r.AddEntry("acme.a", "g1", PointEntry{Point: PointTraceSink, Order: 5, Run: answer("added late")})
		added = err == nil
		return "first", nil
	}
	if _, err := r.AddEntry("acme.a", "g1", PointEntry{Point: PointTraceSink, Order: 1, Run: first}); err != nil {
		t.Fatal(err)
	}
	var err error
	h, err = r.AddEntry("acme.a", "g1", PointEntry{Point: PointTraceSink, Order: 2, Run: answer("released meanwhile")})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Resolve(PointTraceSink, "")
	outs, err := res.Collect(context.Background(), nil, nil)
	var got []any
	for _, o := range outs {
		got = append(got, o.Value)
	}
	if err != nil || !added || !slices.Equal(got, []any{"first", "released meanwhile"}) {
		t.Errorf("operation saw %v (err %v); want the entries it started with", got, err)
	}
	if got := texts(t, r, PointTraceSink, ""); !slices.Equal(got, []string{"first", "added late"}) {
		t.Errorf("the next operation: %q", got)
	}
}

func TestDC3_FanOutSkipsAFailingEntryWithANote(t *testing.T) {
	log := &testkit.Log[Diagnostic]{}
	r := NewRegistry(RegistryOptions{Notes: log.Add})
	publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointChatContext, Order: 1, Run: raise("boom")},
		PointEntry{Point: PointChatContext, Order: 2, Run: answer("still runs")}))
	if got := texts(t, r, PointChatContext, ""); !slices.Equal(got, []string{"still runs"}) {
		t.Errorf("answers %q", got)
	}
	ds := log.Where(coded(PointEntrySkipped))
	if len(ds) != 1 || ds[0].Plugin != "acme.a" || !strings.Contains(ds[0].Message, "boom") {
		t.Errorf("notes %v", log.All())
	}
}

func TestDC3_OrderedFoldPassesTheValueOn(t *testing.T) {
	log := &testkit.Log[Diagnostic]{}
	r := NewRegistry(RegistryOptions{Notes: log.Add})
	add := func(s string) PointFunc {
		return func(_ context.Context, c PointCall) (any, error) { return c.Input.(string) + s, nil }
	}
	publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointChatMiddleware, Order: 1, Run: add("a")},
		PointEntry{Point: PointChatMiddleware, Order: 2, Run: raise("boom")},
		PointEntry{Point: PointChatMiddleware, Order: 3, Run: add("c")}))
	got, err := r.Resolve(PointChatMiddleware, "").Fold(context.Background(), ">", nil)
	if err != nil || got != ">ac" || len(log.Where(coded(PointEntrySkipped))) != 1 {
		t.Errorf("fold = %v, %v; notes %v", got, err, log.All())
	}
}

func TestDC3_AuthoritativeFailureFailsTheOperation(t *testing.T) {
	log := &testkit.Log[Diagnostic]{}
	r := NewRegistry(RegistryOptions{Notes: log.Add})
	publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointDispatchNormalizer, Order: 1, Run: raise("secret detail")},
		PointEntry{Point: PointDispatchNormalizer, Order: 2, Run: answer("never")}))
	_, err := r.Resolve(PointDispatchNormalizer, "").Fold(context.Background(), "x", nil)
	var pe *PointError
	if !errors.As(err, &pe) || pe.Code != ErrPointFailed || pe.Plugin != "acme.a" || strings.Contains(pe.Message, "secret") {
		t.Fatalf("err = %v; want a PointError with point_failed and no raised text", err)
	}
	if ds := log.Where(coded(PointOperationFailed)); len(ds) != 1 || !strings.Contains(ds[0].Message, "secret detail") {
		t.Errorf("the full text must reach the diagnostics: %v", log.All())
	}
}

func TestDC3_ExpectedFailureIsAResult(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointCompactionSummary, Replace: TargetCompactionSummary, Run: func(context.Context, PointCall) (any, error) {
			return nil, &ToolError{Code: "too_short", Message: "nothing to summarize"}
		}}))
	_, err := r.Resolve(PointCompactionSummary, "").Collect(context.Background(), nil, nil)
	var pe *PointError
	if !errors.As(err, &pe) || pe.Code != "too_short" || pe.Message != "nothing to summarize" {
		t.Errorf("err = %v; want the entry's own code and message", err)
	}
}

func TestDC3_CheckRejectionCountsAsFailure(t *testing.T) {
	log := &testkit.Log[Diagnostic]{}
	r := NewRegistry(RegistryOptions{Notes: log.Add})
	publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointThreadSignal, Run: func(context.Context, PointCall) (any, error) { return 42.0, nil }}))
	onlyText := func(_, out any) (any, error) {
		if _, ok := out.(string); !ok {
			return nil, fmt.Errorf("returned a %s; want a string", JSONKind(out))
		}
		return out, nil
	}
	outs, err := r.Resolve(PointThreadSignal, "").Collect(context.Background(), nil, onlyText)
	if err != nil || len(outs) != 0 || len(log.Where(coded(PointEntrySkipped))) != 1 {
		t.Errorf("outs %v err %v notes %v", outs, err, log.All())
	}
}

func TestDC12_RevokedEntryOfASnapshotIsLeftOut(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	p := publish(r, "acme.a", "g1", 0, SourceDev, pointSet(t, "acme.a",
		PointEntry{Point: PointTraceSink, Run: answer("x")}))
	res := r.Resolve(PointTraceSink, "")
	r.Revoke("acme.a", "g1")
	p.Gate.Close()
	if outs, err := res.Collect(context.Background(), nil, nil); err != nil || len(outs) != 0 {
		t.Errorf("a closed generation ran: %v %v", outs, err)
	}
}

func TestDC1_ConcurrentResolveAddRelease(t *testing.T) {
	r := sectionRegistry(&testkit.Log[Diagnostic]{})
	publish(r, "acme.a", "g1", 0, SourceDev, &Set{Plugin: "acme.a"})
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 200 {
				h, err := r.AddEntry("acme.a", "g1", PointEntry{Point: PointPromptSection, Scope: ScopeThread,
					Thread: fmt.Sprint("t", i), Replace: TargetIdentity, Run: answer("x")})
				if err != nil {
					t.Error(err)
					return
				}
				h.Release()
			}
		}()
		go func() {
			defer wg.Done()
			for range 200 {
				if n := len(texts(t, r, PointPromptSection, fmt.Sprint("t", i))); n != 4 {
					t.Errorf("%d sections", n)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestDC2_PointsAreDocumented keeps docs/points.md in step with the
// tables: a row per point with its keyword, tiers, evaluation, consumer and
// failure policy, and a row per hook event.
func TestDC2_PointsAreDocumented(t *testing.T) {
	data, err := os.ReadFile("../docs/points.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, p := range Points {
		row := fmt.Sprintf("| `%s` | `%s` | %s | %s | %s | %s | %s |", p.Name, p.Keyword, p.Title, p.Tiers, p.Eval, p.Combine, p.Failure)
		if !strings.Contains(doc, row) {
			t.Errorf("docs/points.md has no row %s", row)
		}
		for _, tg := range p.Targets {
			if c := fmt.Sprintf("`TARGET_%s` (%d)", strings.ToUpper(tg.Name), tg.Order); !strings.Contains(doc, c) {
				t.Errorf("docs/points.md does not list %s", c)
			}
		}
	}
	for _, h := range Hooks {
		if !strings.Contains(doc, "| `"+string(h.Event)+"` |") {
			t.Errorf("docs/points.md has no row for the hook event %s", h.Event)
		}
	}
}

func TestDC1_HostDefaultForAnUnknownTargetIsNoted(t *testing.T) {
	log := &testkit.Log[Diagnostic]{}
	NewRegistry(RegistryOptions{Notes: log.Add, Defaults: []Default{
		{Point: PointPromptSection, Target: "identiy", Run: answer("x")},
		{Point: PointPromptSection, Target: TargetIdentity, Run: answer("x")},
	}})
	if ds := log.Where(coded(PointEntryInvalid)); len(ds) != 1 || !strings.Contains(ds[0].Message, `"identiy"`) {
		t.Errorf("notes %v", log.All())
	}
}
