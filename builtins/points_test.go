package builtins

import (
	"context"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// TestDC2_ConstructorsComeFromTheTable: every point of the
// table that is not its own kind has a constructor named after it, each
// named default its TARGET_ and ORDER_ constants, and the scopes and order
// ends are predeclared.
func TestDC2_ConstructorsComeFromTheTable(t *testing.T) {
	for _, p := range contrib.Points {
		if _, ok := Predeclared()[string(p.Name)].(*starlark.Builtin); !ok {
			t.Errorf("no constructor %s", p.Name)
		}
		for _, tg := range p.Targets {
			name := strings.ToUpper(tg.Name)
			if Predeclared()["TARGET_"+name] != starlark.String(tg.Name) {
				t.Errorf("TARGET_%s is %v", name, Predeclared()["TARGET_"+name])
			}
			if Predeclared()["ORDER_"+name] != starlark.MakeInt(tg.Order) {
				t.Errorf("ORDER_%s is %v", name, Predeclared()["ORDER_"+name])
			}
		}
	}
	for _, name := range []string{"hook", "raw_hook", "ORDER_FIRST", "ORDER_LAST", "SCOPE_WORKSPACE", "SCOPE_THREAD"} {
		if !IsPredeclared(name) {
			t.Errorf("%s is not predeclared", name)
		}
	}
}

func TestDC1_ConstructorsStageWithPositions(t *testing.T) {
	log := &noteLog{}
	inst, err := NewActivator(Options{}).Activate(context.Background(), request(`
contribute(
    prompt_sections = [prompt_section(replace = TARGET_RESPONSE_STYLE, order = 3, run = lambda ctx, req: "x")],
    compaction_summarizers = [compaction_summarizer(run = lambda ctx, req: "summary")],
    raw_hooks = [raw_hook("rewrite_prompt", lambda ctx, ev: None), raw_hook("rewrite_approval", lambda ctx, ev: None)],
)`, log))
	if err != nil {
		t.Fatal(err)
	}
	set := inst.Set()
	if len(set.Points) != 2 || set.Points[0].Replace != contrib.TargetResponseStyle || set.Points[0].Order != 3 ||
		set.Points[0].Pos.Line != 3 || set.Points[1].Replace != contrib.TargetCompactionSummary {
		t.Errorf("points %+v", set.Points)
	}
	if len(set.Hooks) != 2 || !set.Hooks[0].Raw {
		t.Errorf("hooks %+v", set.Hooks)
	}
	var raw []contrib.Diagnostic
	for _, d := range set.Diagnostics {
		if d.Code == contrib.RawHookRegistered {
			raw = append(raw, d)
		}
	}
	if len(raw) != 1 || raw[0].Message != "Plugin 'acme.test' registered a raw hook." {
		t.Errorf("raw hook notes %v; want one (HK3)", raw)
	}
	out, err := set.Points[1].Run(context.Background(), contrib.PointCall{Point: contrib.PointCompactionSummary, Input: map[string]any{}})
	if err != nil || out != "summary" {
		t.Errorf("run = %v, %v", out, err)
	}
}

func TestDC1_ReplaceOnlyOnTierBPoints(t *testing.T) {
	_, err := NewActivator(Options{}).Activate(context.Background(), request(`
contribute(prompt_assemblers = [prompt_assembler(replace = TARGET_IDENTITY, run = lambda ctx, req: "x")])`, &noteLog{}))
	if err == nil || !strings.Contains(err.Error(), "unexpected keyword argument \"replace\"") {
		t.Errorf("err = %v", err)
	}
}
