package builtins

import (
	"fmt"
	"slices"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// contributeLists are the list-valued keywords of contribute() and the entry
// kind each accepts.
var contributeLists = []struct{ keyword, kind string }{
	{"tools", "tool"},
	{"commands", "command"},
	{"placeholders", "placeholder"},
	{"status_fields", "status_field"},
}

// attachKeywords are contribute()'s callback keywords, in stage order.
var attachKeywords = []contrib.AttachStage{contrib.AttachEnv}

func contribute(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	inst, err := threadInstance(th, b.Name())
	if err != nil || !inst.activating || inst.running != inst.req.Entry {
		return nil, fmt.Errorf("contribute: only the top level of the entry file (%s) may call it", entryName(inst))
	}
	if len(args) > 0 {
		return nil, fmt.Errorf("contribute: takes keyword arguments only (tools = [...], commands = [...], ...)")
	}
	pos := callerPos(th, 0)
	if inst.contributed {
		inst.staging.Report(contrib.ContributeTwice, pos, "contribute() was already called at %s; this call is ignored", inst.contributedAt)
		return starlark.None, nil
	}
	lists := make([]*starlark.List, len(contributeLists))
	callbacks := make([]starlark.Value, len(attachKeywords))
	var exports *starlark.Dict
	pairs := []any{}
	for i, l := range contributeLists {
		pairs = append(pairs, l.keyword+"?", &lists[i])
	}
	for i, k := range attachKeywords {
		pairs = append(pairs, string(k)+"?", &callbacks[i])
	}
	pairs = append(pairs, "exports?", &exports)
	if err := starlark.UnpackArgs(b.Name(), nil, kwargs, pairs...); err != nil {
		return nil, err
	}
	inst.contributed, inst.contributedAt = true, pos
	for i, l := range contributeLists {
		if err := inst.stageList(l.keyword, l.kind, lists[i], pos); err != nil {
			return nil, err
		}
	}
	for i, k := range attachKeywords {
		if err := inst.setCallback(k, callbacks[i]); err != nil {
			return nil, err
		}
	}
	return starlark.None, inst.setExports(exports, pos)
}

// stageList stages every entry of one contribute() list; None entries are
// left out with a note (CC2).
func (inst *instance) stageList(keyword, kind string, list *starlark.List, pos contrib.Pos) error {
	if list == nil {
		return nil
	}
	for i := 0; i < list.Len(); i++ {
		v := list.Index(i)
		if v == starlark.None {
			inst.staging.Report(contrib.NoneEntry, pos, "contribute(%s = [...]): entry %d is None and is left out", keyword, i)
			continue
		}
		e, ok := v.(*entry)
		if !ok || e.kind != kind {
			return fmt.Errorf("contribute: %s[%d] is a %s; want a %s(...)", keyword, i, v.Type(), kind)
		}
		inst.stage(e)
	}
	return nil
}

func (inst *instance) stage(e *entry) {
	switch e.kind {
	case "tool":
		t := e.tool
		t.Run = inst.toolFunc(e.name, e.pos, e.fn)
		inst.staging.AddTool(t)
	case "command":
		c := e.command
		c.Aliases = slices.Clone(c.Aliases)
		c.Run = inst.commandFunc(e.name, e.pos, e.fn)
		inst.staging.AddCommand(c)
	case "placeholder":
		p := e.placeholder
		p.Resolve = inst.resolveFunc(e.name, e.pos, e.fn)
		inst.staging.AddPlaceholder(p)
	case "status_field":
		inst.staging.AddStatusField(e.field)
	}
}

func (inst *instance) setCallback(stage contrib.AttachStage, v starlark.Value) error {
	if v == nil || v == starlark.None {
		return nil
	}
	fn, ok := v.(starlark.Callable)
	if !ok {
		return fmt.Errorf("contribute: %s must be a function, not %s", stage, v.Type())
	}
	inst.callbacks[stage] = fn
	return nil
}

// setExports records the services the plugin exports (DC13). Only names the
// manifest declares in exports are accepted.
func (inst *instance) setExports(d *starlark.Dict, pos contrib.Pos) error {
	if d == nil {
		return nil
	}
	for _, item := range d.Items() {
		name, ok := item[0].(starlark.String)
		if !ok {
			return fmt.Errorf("contribute: exports keys must be strings, not %s", item[0].Type())
		}
		if !slices.Contains(inst.req.Exports, string(name)) {
			return fmt.Errorf("contribute: export %q is not declared in plugin.toml; add it to exports = [...]", string(name))
		}
		item[1].Freeze()
		inst.exports[string(name)] = item[1]
	}
	return nil
}

func entryName(inst *instance) string {
	if inst == nil {
		return "plugin.star"
	}
	return inst.req.Entry
}
