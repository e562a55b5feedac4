package builtins

import (
	"fmt"
	"slices"
	"sync"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// listKind is one list-valued keyword of contribute(): the entry kind it
// accepts and how an entry of that kind is staged.
type listKind struct {
	keyword, kind string
	stage         func(inst *instance, e *entry)
}

// attachKeywords are contribute()'s callback keywords, in stage order.
var attachKeywords = contrib.AttachStages

// contributeKeys are contribute()'s optional keyword names ("tools?", ...,
// "exports?") in the order contribute unpacks them — the lists, the attach
// callbacks, exports — each already boxed in an any, and their indexes by
// bare name: built once, on first use, instead of
// concatenated and boxed on every plugin's call.
var contributeKeys = sync.OnceValue(func() (k struct {
	boxed []any
	index map[string]int
}) {
	names := make([]string, 0, len(contributeLists)+len(attachKeywords)+1)
	for _, l := range contributeLists {
		names = append(names, l.keyword)
	}
	for _, a := range attachKeywords {
		names = append(names, string(a))
	}
	names = append(names, "exports")
	k.index = make(map[string]int, len(names))
	for i, n := range names {
		k.boxed = append(k.boxed, n+"?")
		k.index[n] = i
	}
	return k
})

// contributePairs returns the UnpackArgs pairs for the keywords kwargs
// names — a one-tool plugin passes one of some twenty — with target(i) the
// destination of keyword i. When a keyword is unknown or repeated it
// returns every pair, so that UnpackArgs words the error as always.
func contributePairs(kwargs []starlark.Tuple, target func(i int) any) []any {
	keys := contributeKeys()
	pairs := make([]any, 0, 2*len(kwargs))
	var seen uint64
	for _, kv := range kwargs {
		name, _ := starlark.AsString(kv[0])
		i, ok := keys.index[name]
		if !ok || i >= 64 || seen&(1<<i) != 0 {
			pairs = make([]any, 0, 2*len(keys.boxed))
			for i, k := range keys.boxed {
				pairs = append(pairs, k, target(i))
			}
			return pairs
		}
		seen |= 1 << i
		pairs = append(pairs, keys.boxed[i], target(i))
	}
	return pairs
}

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
	pairs := contributePairs(kwargs, func(i int) any {
		switch {
		case i < len(lists):
			return &lists[i]
		case i < len(lists)+len(callbacks):
			return &callbacks[i-len(lists)]
		}
		return &exports
	})
	if err := starlark.UnpackArgs(b.Name(), nil, kwargs, pairs...); err != nil {
		return nil, err
	}
	inst.contributed, inst.contributedAt = true, pos
	noted := len(inst.staging.Set().Diagnostics)
	for i, l := range contributeLists {
		if err := inst.stageList(l, lists[i], pos); err != nil {
			return nil, err
		}
	}
	for i, ds := noted, inst.staging.Set().Diagnostics; i < len(ds); i++ {
		inst.placeSchemaNote(&ds[i]) // where check puts it (docs/check.md)
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
func (inst *instance) stageList(l listKind, list *starlark.List, pos contrib.Pos) error {
	if list == nil {
		return nil
	}
	for i := 0; i < list.Len(); i++ {
		v := list.Index(i)
		if v == starlark.None {
			inst.staging.Report(contrib.NoneEntry, pos, "contribute(%s = [...]): entry %d is None and is left out", l.keyword, i)
			continue
		}
		e, ok := v.(*entry)
		if !ok || e.kind != l.kind {
			return fmt.Errorf("contribute: %s[%d] is a %s; want a %s(...)", l.keyword, i, v.Type(), l.kind)
		}
		if !inst.entryArityFits(e) {
			continue // as check reports it: CallbackArity is an error, the entry is left out
		}
		l.stage(inst, e)
	}
	return nil
}

func stageTool(inst *instance, e *entry, st *contrib.Staging) {
	t := e.tool
	run := inst.toolFunc(e.name, e.pos, e.fn)
	if !t.Multimodal {
		run = inst.multimodalOnly(e.name, e.pos, run) // MC1: parts need the declaration
	}
	t.Run = contrib.WithArgsForm(run, starlarkArgs) // the form travels with the Run
	st.AddTool(t)
}

func stageCommand(inst *instance, e *entry) {
	c := e.command
	c.Aliases = slices.Clone(c.Aliases)
	c.Run = inst.commandFunc(e.name, e.pos, e.fn)
	inst.staging.AddCommand(c)
}

func stagePlaceholder(inst *instance, e *entry) {
	p := e.placeholder
	p.Resolve = inst.resolveFunc(e.name, e.pos, e.fn)
	inst.staging.AddPlaceholder(p)
}

func (inst *instance) setCallback(stage contrib.AttachStage, v starlark.Value) error {
	if v == nil || v == starlark.None {
		return nil
	}
	fn, ok := v.(starlark.Callable)
	if !ok {
		return fmt.Errorf("contribute: %s must be a function, not %s", stage, v.Type())
	}
	if sig := LookupSignature("contribute"); sig != nil {
		if p := sig.Param(string(stage)); p != nil && p.Callback != nil && !inst.arityFits(fn, p.Callback) {
			return nil
		}
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
