package builtins

import (
	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// providedTools converts a tool_provider's answer (MC2): None is no tools;
// otherwise a list of tool(...) entries, validated like the tools of
// contribute() — name rules, built-in names, duplicates, catalogs, schema —
// each problem a diagnostic note at the tool(...) call, the tool left out.
// The answer is a []contrib.Tool bound to this generation.
func (inst *instance) providedTools(pos contrib.Pos, what string, v starlark.Value) (any, error) {
	if v == starlark.None {
		return nil, nil
	}
	list, ok := v.(*starlark.List)
	if !ok {
		return nil, inst.badReturn(pos, what, v, "a list of tool(...) entries or None")
	}
	st := contrib.NewStaging(inst.req.Plugin, inst.req.Rules)
	for i := 0; i < list.Len(); i++ {
		e, ok := list.Index(i).(*entry)
		if !ok || e.kind != "tool" {
			return nil, inst.badReturn(pos, what, list.Index(i), "tool(...) entries in the list")
		}
		e.fn.Freeze() // it runs on any goroutine of this planning from now on
		stageTool(inst, e, st)
	}
	for _, d := range st.Set().Diagnostics {
		inst.note(d)
	}
	return st.Set().Tools, nil
}
