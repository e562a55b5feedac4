package contrib

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
)

func okTool(name string) Tool {
	return Tool{Name: name, Catalogs: PlanAndWork, Pos: Pos{File: "plugin.star", Line: 3, Col: 5},
		Run: ToolFunc(func(context.Context, any) Result { return Result{Text: name} })}
}

func codes(ds []Diagnostic) []Code {
	out := make([]Code, len(ds))
	for i, d := range ds {
		out[i] = d.Code
	}
	return out
}

func toolNames(s *Set) []string {
	var out []string
	for _, t := range s.Tools {
		out = append(out, t.Name)
	}
	return out
}

func TestDC5_DuplicateToolInPluginIsDiagnostic(t *testing.T) {
	st := NewStaging("acme", Rules{})
	st.AddTool(okTool("echo"))
	dup := okTool("Echo") // names compare case-insensitively
	dup.Pos = Pos{File: "plugin.star", Line: 9, Col: 2}
	st.AddTool(dup)
	st.AddTool(okTool("other"))
	set := st.Set()
	if got := toolNames(set); !slices.Equal(got, []string{"echo", "other"}) {
		t.Fatalf("tools = %v, want [echo other]", got)
	}
	if len(set.Diagnostics) != 1 {
		t.Fatalf("diagnostics = %v, want one ToolDuplicate", set.Diagnostics)
	}
	d := set.Diagnostics[0]
	if d.Code != ToolDuplicate || d.Plugin != "acme" || d.Pos != dup.Pos {
		t.Errorf("diagnostic = %+v, want ToolDuplicate for acme at %v", d, dup.Pos)
	}
	// A diagnostic, not an activation failure: the first tool still runs.
	if res := set.Tools[0].Run.Run(context.Background(), nil); res.Text != "echo" {
		t.Errorf("first echo ran as %q", res.Text)
	}
}

func TestCC5_BuiltinNamesRejected(t *testing.T) {
	st := NewStaging("acme", Rules{BuiltinTools: []string{"read", "Bash", "skill"}})
	for _, n := range []string{"READ", "bash", "Skill", "reader", "bash2"} {
		st.AddTool(okTool(n))
	}
	set := st.Set()
	if got := toolNames(set); !slices.Equal(got, []string{"reader", "bash2"}) {
		t.Errorf("tools = %v, want [reader bash2]", got)
	}
	if got := codes(set.Diagnostics); !slices.Equal(got, []Code{toolNameReserved, toolNameReserved, toolNameReserved}) {
		t.Errorf("codes = %v, want three ToolNameReserved", got)
	}
	// A reserved name is not "seen": it does not make a later valid tool a duplicate.
	st.AddTool(okTool("Invalid Name"))
	if last := set.Diagnostics[len(set.Diagnostics)-1]; last.Code != ToolNameInvalid {
		t.Errorf("last code = %s, want ToolNameInvalid", last.Code)
	}
}

func TestCC4_ToolNeedsACatalog(t *testing.T) {
	st := NewStaging("acme", Rules{})
	none := okTool("nowhere")
	none.Catalogs = 0
	st.AddTool(none)
	for _, c := range []Catalog{Plan, Work, PlanAndWork} {
		tool := okTool("in_" + c.String())
		tool.Catalogs = c
		st.AddTool(tool)
	}
	set := st.Set()
	if got := toolNames(set); !slices.Equal(got, []string{"in_plan", "in_work", "in_plan_and_work"}) {
		t.Errorf("tools = %v", got)
	}
	if got := codes(set.Diagnostics); !slices.Equal(got, []Code{toolNoCatalog}) {
		t.Errorf("codes = %v, want [ToolNoCatalog]", got)
	}
	// The left-out tool does not reserve its name.
	fixed := okTool("nowhere")
	st.AddTool(fixed)
	if got := toolNames(st.Set()); !slices.Contains(got, "nowhere") {
		t.Errorf("a fixed tool with the name of a left-out one was rejected: %v", st.Set().Diagnostics)
	}
}

func TestDC4_InvalidSchemaLeftOut(t *testing.T) {
	st := NewStaging("acme", Rules{})
	bad := okTool("bad_type")
	bad.Parameters = json.RawMessage(`{"type": 5}`)
	st.AddTool(bad)
	notJSON := okTool("not_json")
	notJSON.Parameters = json.RawMessage(`{"type": `)
	st.AddTool(notJSON)
	none := okTool("no_params")
	st.AddTool(none)
	good := okTool("typed")
	good.Parameters = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
	st.AddTool(good)

	set := st.Set()
	if got := toolNames(set); !slices.Equal(got, []string{"no_params", "typed"}) {
		t.Fatalf("tools = %v, want [no_params typed]", got)
	}
	if got := codes(set.Diagnostics); !slices.Equal(got, []Code{ToolSchemaInvalid, ToolSchemaInvalid}) {
		t.Errorf("codes = %v, want two ToolSchemaInvalid", got)
	}
	for _, d := range set.Diagnostics {
		if d.Pos != bad.Pos {
			t.Errorf("diagnostic %v lacks the constructor position", d)
		}
	}
	if p := string(set.Tools[0].Parameters); p != `{"type":"object"}` {
		t.Errorf("empty parameters became %s, want {\"type\":\"object\"}", p)
	}
	for _, tool := range set.Tools {
		if tool.schema == nil {
			t.Errorf("tool %s staged without a compiled schema", tool.Name)
		}
	}
}

func TestCC11_BuiltinVerbsWin(t *testing.T) {
	st := NewStaging("acme", Rules{BuiltinCommands: []string{"help", "q", "quit"}})
	st.AddCommand(Command{Name: "Help"})
	st.AddCommand(Command{Name: "hello", Aliases: []string{"Q", "h-1", "9x", "hi"}})
	st.AddCommand(Command{Name: "bad name"})
	set := st.Set()
	if len(set.Commands) != 1 || set.Commands[0].Name != "hello" {
		t.Fatalf("commands = %+v, want only /hello", set.Commands)
	}
	if got := set.Commands[0].Aliases; !slices.Equal(got, []string{"h-1", "hi"}) {
		t.Errorf("aliases = %v, want [h-1 hi]", got)
	}
	want := []Code{commandShadowed, commandShadowed, commandNameInvalid, commandNameInvalid}
	if got := codes(set.Diagnostics); !slices.Equal(got, want) {
		t.Errorf("codes = %v, want %v", got, want)
	}
}

func TestCC11_AliasFilterKeepsCallerSlice(t *testing.T) {
	aliases := []string{"quit", "x"}
	st := NewStaging("acme", Rules{BuiltinCommands: []string{"quit"}})
	st.AddCommand(Command{Name: "go", Aliases: aliases})
	if !slices.Equal(aliases, []string{"quit", "x"}) {
		t.Errorf("caller's alias slice was modified: %v", aliases)
	}
}

func TestCC12_PlaceholderStaging(t *testing.T) {
	st := NewStaging("acme", Rules{HostPlaceholders: []string{"workspace", "Model"}})
	for _, n := range []string{"WORKSPACE", "model", "branch", "Branch", "git-branch", "ticket"} {
		st.AddPlaceholder(Placeholder{Name: n})
	}
	set := st.Set()
	var names []string
	for _, p := range set.Placeholders {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"branch", "ticket"}) {
		t.Errorf("placeholders = %v, want [branch ticket]", names)
	}
	want := []Code{placeholderReserved, placeholderReserved, placeholderTaken, placeholderNameInvalid}
	if got := codes(set.Diagnostics); !slices.Equal(got, want) {
		t.Errorf("codes = %v, want %v", got, want)
	}
}
