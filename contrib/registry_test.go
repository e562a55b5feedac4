package contrib

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// stage builds a Set the way the activator does, so every tool has its
// compiled schema.
func stage(t *testing.T, plugin string, tools ...Tool) *Set {
	t.Helper()
	st := NewStaging(plugin, Rules{})
	for _, tool := range tools {
		st.AddTool(tool)
	}
	if len(st.Set().Diagnostics) > 0 {
		t.Fatalf("staging %s: %v", plugin, st.Set().Diagnostics)
	}
	return st.Set()
}

func publish(r *Registry, plugin, gen string, rank int, src Source, set *Set) *Published {
	p := &Published{Plugin: plugin, Generation: gen, Rank: rank, Source: src, Set: set, Gate: NewGate()}
	r.Publish(p)
	return p
}

func external(name string, c Catalog) ExternalTool {
	return ExternalTool{Name: name, ToolSet: "mcp", Catalogs: c,
		Run: func(context.Context, any) Result { return Result{Text: "external " + name} }}
}

// coded accepts the diagnostics with code.
func coded(code Code) func(Diagnostic) bool {
	return func(d Diagnostic) bool { return d.Code == code }
}

func names(infos []ToolInfo) []string {
	out := make([]string, len(infos))
	for i, ti := range infos {
		out[i] = ti.Name
	}
	return out
}

func TestCC6_CatalogOrder(t *testing.T) {
	var log testkit.Log[Diagnostic]
	skill := external("skill", PlanAndWork)
	r := NewRegistry(RegistryOptions{
		External: []ExternalTool{external("ext_work", Work), external("Home_Tool", PlanAndWork), external("ext_plan", Plan)},
		Skill:    &skill,
		Notes:    log.Add,
	})
	// Published out of order: the registry sorts.
	publish(r, "project.b", "g3", 2, SourceProject, stage(t, "project.b", okTool("project_tool")))
	publish(r, "home.a", "g1", 1, SourceHome, stage(t, "home.a", okTool("home_tool"), okTool("home_tool2")))
	publish(r, "core", "g2", 7, SourceBuiltin, stage(t, "core", okTool("core_tool")))

	want := []string{"core_tool", "home_tool", "home_tool2", "project_tool", "ext_work", "skill"}
	snap := r.Tools(Work)
	if got := names(snap.List()); !slices.Equal(got, want) {
		t.Errorf("work catalog = %v\nwant %v", got, want)
	}
	wantPlan := []string{"core_tool", "home_tool", "home_tool2", "project_tool", "ext_plan", "skill"}
	if got := names(r.Tools(Plan).List()); !slices.Equal(got, wantPlan) {
		t.Errorf("plan catalog = %v\nwant %v", got, wantPlan)
	}
	if got := snap.List()[0]; got.Plugin != "core" || got.Generation != "g2" || got.Catalogs != "plan_and_work" {
		t.Errorf("core_tool projection = %+v", got)
	}

	// The external Home_Tool is named like home.a's home_tool (case-insensitively).
	shadowed := log.Where(coded(ExternalToolShadowed))
	if len(shadowed) != 1 || !strings.Contains(shadowed[0].Message, `"Home_Tool"`) || !strings.Contains(shadowed[0].Message, "home.a") {
		t.Fatalf("ExternalToolShadowed notes = %v, want one naming Home_Tool and home.a", shadowed)
	}
	// Republishing does not repeat the note.
	publish(r, "project.b", "g4", 2, SourceProject, stage(t, "project.b", okTool("project_tool")))
	if n := len(log.Where(coded(ExternalToolShadowed))); n != 1 {
		t.Errorf("ExternalToolShadowed reported %d times, want once", n)
	}

	// Once the plugin is gone, the external tool is listed again, before skill.
	r.Revoke("home.a", "g1")
	want = []string{"core_tool", "project_tool", "ext_work", "Home_Tool", "skill"}
	if got := names(r.Tools(Work).List()); !slices.Equal(got, want) {
		t.Errorf("after revoke: %v\nwant %v", got, want)
	}
}

func TestCC6_RankTieBrokenByPluginID(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	publish(r, "zeta", "g1", 0, SourceDev, stage(t, "zeta", okTool("z")))
	publish(r, "alpha", "g2", 0, SourceDev, stage(t, "alpha", okTool("a")))
	if got := names(r.Tools(PlanAndWork).List()); !slices.Equal(got, []string{"a", "z"}) {
		t.Errorf("order = %v, want [a z]", got)
	}
}

func TestCC5_LaterPluginToolNameTaken(t *testing.T) {
	var log testkit.Log[Diagnostic]
	r := NewRegistry(RegistryOptions{Notes: log.Add})
	publish(r, "first", "g1", 0, SourceHome, stage(t, "first", okTool("lint")))
	publish(r, "second", "g2", 1, SourceHome, stage(t, "second", okTool("LINT"), okTool("fmt")))
	list := r.Tools(Work).List()
	if got := names(list); !slices.Equal(got, []string{"lint", "fmt"}) {
		t.Fatalf("tools = %v", got)
	}
	if list[0].Plugin != "first" {
		t.Errorf("lint belongs to %s, want first", list[0].Plugin)
	}
	taken := log.Where(coded(ToolNameTaken))
	if len(taken) != 1 || taken[0].Plugin != "second" {
		t.Errorf("ToolNameTaken notes = %v, want one for second", taken)
	}
	if c := r.View().Conflicts("second"); len(c) != 1 || c[0].Code != ToolNameTaken {
		t.Errorf("Conflicts(second) = %v", c)
	}
}

func TestCC12_PlaceholderFirstInLoadOrderWins(t *testing.T) {
	var log testkit.Log[Diagnostic]
	r := NewRegistry(RegistryOptions{Notes: log.Add})
	holder := func(plugin, name string) *Set {
		st := NewStaging(plugin, Rules{})
		st.AddPlaceholder(Placeholder{Name: name, Pos: Pos{File: "plugin.star", Line: 1}})
		return st.Set()
	}
	publish(r, "late", "g1", 5, SourceHome, holder("late", "date"))
	publish(r, "early", "g2", 1, SourceProject, holder("early", "Date"))

	e, ok := r.View().Placeholder("DATE")
	if !ok || e.Plugin != "early" || e.Generation != "g2" {
		t.Fatalf("Placeholder(DATE) = %+v, %v; want early/g2", e, ok)
	}
	taken := log.Where(coded(placeholderTaken))
	if len(taken) != 1 || taken[0].Plugin != "late" || !strings.Contains(taken[0].Message, "early") {
		t.Errorf("PlaceholderTaken notes = %v, want one for late naming early", taken)
	}

	// A built-in plugin loads first whatever its rank.
	publish(r, "core", "g3", 9, SourceBuiltin, holder("core", "date"))
	if e, _ := r.View().Placeholder("date"); e.Plugin != "core" {
		t.Errorf("Placeholder(date) owned by %s, want core", e.Plugin)
	}

	// Revoking the winner hands the name to the next in load order.
	r.Revoke("core", "g3")
	r.Revoke("early", "g2")
	if e, _ := r.View().Placeholder("date"); e.Plugin != "late" {
		t.Errorf("Placeholder(date) owned by %s, want late", e.Plugin)
	}
	if _, ok := r.View().Placeholder("nothing"); ok {
		t.Errorf("unknown placeholder found")
	}
}

func TestDC8_CommandOrder(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	cmds := func(plugin string, cs ...Command) *Set {
		st := NewStaging(plugin, Rules{})
		for _, c := range cs {
			st.AddCommand(c)
		}
		return st.Set()
	}
	publish(r, "p0", "g0", 0, SourceHome, cmds("p0", Command{Name: "review", Order: 5}))
	publish(r, "p1", "g1", 1, SourceHome, cmds("p1",
		Command{Name: "Review", Order: 1},
		Command{Name: "rv", Aliases: []string{"review"}, Order: 1}))
	publish(r, "p2", "g2", 2, SourceHome, cmds("p2", Command{Name: "review", Order: 1}, Command{Name: "other", Order: -3}))

	type key struct {
		plugin, name string
	}
	var got []key
	for _, e := range r.View().Commands("REVIEW") {
		got = append(got, key{e.Plugin, e.Command.Name})
	}
	want := []key{{"p1", "Review"}, {"p1", "rv"}, {"p2", "review"}, {"p0", "review"}}
	if !slices.Equal(got, want) {
		t.Errorf("candidates for /review = %v\nwant %v", got, want)
	}
	if c := r.View().Commands("rv"); len(c) != 1 || c[0].Plugin != "p1" {
		t.Errorf("candidates for /rv = %v", c)
	}
	var all []key
	for _, e := range r.View().AllCommands() {
		all = append(all, key{e.Plugin, e.Command.Name})
	}
	wantAll := []key{{"p0", "review"}, {"p1", "Review"}, {"p1", "rv"}, {"p2", "review"}, {"p2", "other"}}
	if !slices.Equal(all, wantAll) {
		t.Errorf("AllCommands = %v\nwant %v", all, wantAll)
	}

	// Revoking a plugin removes its commands at once.
	r.Revoke("p1", "g1")
	if c := r.View().Commands("review"); len(c) != 2 || c[0].Plugin != "p2" {
		t.Errorf("after revoke: %v", c)
	}
	if c := r.View().Commands("rv"); len(c) != 0 {
		t.Errorf("/rv still listed after revoke: %v", c)
	}
}

func TestDC26_RevokeOnlyTheNamedGeneration(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme", okTool("a")))
	publish(r, "acme", "g2", 0, SourceDev, stage(t, "acme", okTool("a")))
	if r.Revoke("acme", "g1") {
		t.Errorf("Revoke of a replaced generation reported true")
	}
	if r.View().Gate("acme", "g2") == nil {
		t.Errorf("g2 lost its gate")
	}
	if r.View().Gate("acme", "g1") != nil {
		t.Errorf("g1 still has a gate")
	}
	if !r.Revoke("acme", "g2") || r.Revoke("acme", "g2") {
		t.Errorf("Revoke(g2) should report true once")
	}
	if r.Tools(Work).Len() != 0 {
		t.Errorf("tools left after revoke")
	}
}

func TestDC8_BuiltinCommandTiesFollowLoadOrder(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	cmd := func(plugin string) *Set {
		st := NewStaging(plugin, Rules{})
		st.AddCommand(Command{Name: "review"})
		return st.Set()
	}
	// Discovery ranks the built-in root last; the view still loads it first.
	publish(r, "disk", "g1", 0, SourceHome, cmd("disk"))
	publish(r, "core", "g2", 3, SourceBuiltin, cmd("core"))
	if first := r.View().Published()[0].Plugin; first != "core" {
		t.Fatalf("load order starts with %s, want core", first)
	}
	if c := r.View().Commands("review"); c[0].Plugin != "core" {
		t.Errorf("/review asks %s first, want core (first in load order, same order)", c[0].Plugin)
	}
}

func TestCC6_DuplicateExternalToolNote(t *testing.T) {
	var log testkit.Log[Diagnostic]
	r := NewRegistry(RegistryOptions{External: []ExternalTool{external("fetch", Work), external("fetch", Work)}, Notes: log.Add})
	if got := names(r.Tools(Work).List()); !slices.Equal(got, []string{"fetch"}) {
		t.Fatalf("tools = %v", got)
	}
	for _, d := range log.Where(coded(ExternalToolShadowed)) {
		if strings.Contains(d.Message, "plugin ;") {
			t.Errorf("note names an empty plugin: %q", d.Message)
		}
	}
}

// TestCC6_DeferredPublishRebuildsOnce: publications under Defer become
// visible together when it is done; a revocation is never deferred.
func TestCC6_DeferredPublishRebuildsOnce(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	mk := func(id string) *Published {
		st := NewStaging(id, Rules{})
		st.AddTool(Tool{Name: "t_" + id, Catalogs: Work, Run: ToolFunc(func(context.Context, any) Result { return Result{Text: id} })})
		return &Published{Plugin: id, Generation: "g1", Set: st.Set(), Gate: NewGate()}
	}
	done := r.Defer()
	r.Publish(mk("a"))
	r.Publish(mk("b"))
	if n := r.Tools(Work).Len(); n != 0 {
		t.Fatalf("%d tools visible while deferred", n)
	}
	done()
	if n := r.Tools(Work).Len(); n != 2 {
		t.Fatalf("%d tools after done, want 2", n)
	}
	done = r.Defer()
	snap := r.Tools(Work)
	r.Revoke("a", "g1")
	if res := snap.Invoke(context.Background(), "t_a", nil); res.Err == nil || res.Err.Code != ErrToolUnavailable {
		t.Fatalf("revocation deferred: %+v", res)
	}
	done()
}

// TestAT2_PublishReplacesAGenerationInOneStep: readers racing with 200
// replacements of one plugin's generation never see a view without it, and
// a snapshot taken before a replacement follows the tool to the new one.
func TestAT2_PublishReplacesAGenerationInOneStep(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g0", 0, SourceDev, stage(t, "acme", okTool("echo")))
	old := r.Tools(Work)
	stop := make(chan struct{})
	missing := make(chan string, 1)
	go func() {
		defer close(missing)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if len(r.View().Published()) != 1 || r.Tools(Work).Len() != 1 {
				missing <- "a view without acme"
				return
			}
		}
	}()
	for i := 1; i <= 200; i++ {
		publish(r, "acme", fmt.Sprintf("g%d", i), 0, SourceDev, stage(t, "acme", okTool("echo")))
	}
	close(stop)
	if m, ok := <-missing; ok {
		t.Fatal(m)
	}
	if res := old.Invoke(context.Background(), "echo", nil); res.Text != "echo" {
		t.Fatalf("snapshot from g0 after 200 replacements: %+v", res)
	}
}
