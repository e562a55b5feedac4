package builtins

import (
	"fmt"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// Predeclared returns the names every plugin module sees (CC1): contribute,
// one constructor per contribution kind, error, deps, json and struct.
// Nothing else of the host is reachable from Starlark. The dict is shared and
// frozen; callers must not modify it.
func Predeclared() starlark.StringDict { return predeclared }

// IsPredeclared reports whether name is predeclared for plugin modules.
func IsPredeclared(name string) bool { return predeclared.Has(name) }

// threadInstance returns the instance a thread runs for.
func threadInstance(th *starlark.Thread, fn string) (*instance, error) {
	inst, _ := th.Local(localInstance).(*instance)
	if inst == nil {
		return nil, fmt.Errorf("%s: not available here", fn)
	}
	return inst, nil
}

func newEntry(th *starlark.Thread, kind, name string) *entry {
	return &entry{kind: kind, name: name, pos: callerPos(th, 0)}
}

func newTool(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		name, description string
		catalogs          starlark.Value = starlark.None
		params            starlark.Value = starlark.None
		readOnly          bool
		namespace         string
		approval          starlark.Value = starlark.None
		multimodal        bool
		remote            bool
		output            starlark.Value = starlark.None
		run               starlark.Callable
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "run", &run, "description?", &description,
		"parameters?", &params, "catalogs?", &catalogs, "read_only?", &readOnly, "namespace?", &namespace,
		"requires_approval?", &approval, "multimodal?", &multimodal, "output_schema?", &output, "remote?", &remote); err != nil {
		return nil, err
	}
	var requires *bool
	switch v := approval.(type) {
	case starlark.Bool:
		b := bool(v)
		requires = &b
	case starlark.NoneType:
	default:
		return nil, fmt.Errorf("tool %q: requires_approval must be True, False or None, not %s", name, approval.Type())
	}
	e := newEntry(th, "tool", name)
	var raw []byte
	if params != starlark.None {
		var err error
		if raw, err = ToJSON(params); err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", name, err)
		}
	}
	var outRaw []byte
	if output != starlark.None {
		var err error
		if outRaw, err = ToJSON(output); err != nil {
			return nil, fmt.Errorf("tool %q: output_schema: %w", name, err)
		}
	}
	var cat contrib.Catalog
	if s, ok := catalogs.(starlark.String); ok {
		c, err := contrib.ParseCatalog(string(s))
		if err != nil {
			return nil, fmt.Errorf("tool %q: catalogs = %s; want \"plan\", \"work\" or \"plan_and_work\"", name, s)
		}
		cat = c
	} else if catalogs != starlark.None {
		return nil, fmt.Errorf("tool %q: catalogs must be a string, not %s", name, catalogs.Type())
	}
	e.tool = contrib.Tool{Name: name, Description: description, Catalogs: cat, Parameters: raw, ReadOnly: readOnly,
		Namespace: namespace, RequiresApproval: requires, Multimodal: multimodal, OutputSchema: outRaw, Remote: remote, Pos: e.pos}
	e.fn = run
	return e, nil
}

func newCommand(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		name, description, hint string
		aliases                 *starlark.List
		order                   int
		run                     starlark.Callable
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "run", &run, "aliases?", &aliases,
		"description?", &description, "order?", &order, "argument_hint?", &hint); err != nil {
		return nil, err
	}
	e := newEntry(th, "command", name)
	var names []string
	if aliases != nil {
		for i := 0; i < aliases.Len(); i++ {
			s, ok := aliases.Index(i).(starlark.String)
			if !ok {
				return nil, fmt.Errorf("command %q: aliases must be strings, got %s", name, aliases.Index(i).Type())
			}
			names = append(names, string(s))
		}
	}
	e.command = contrib.Command{Name: name, Aliases: names, Description: description, ArgumentHint: hint, Order: order, Pos: e.pos}
	e.fn = run
	return e, nil
}

func newPlaceholder(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var resolve starlark.Callable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "resolve", &resolve); err != nil {
		return nil, err
	}
	e := newEntry(th, "placeholder", name)
	e.placeholder = contrib.Placeholder{Name: name, Pos: e.pos}
	e.fn = resolve
	return e, nil
}

func newStatusField(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name, description string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "description?", &description); err != nil {
		return nil, err
	}
	e := newEntry(th, "status_field", name)
	e.field = contrib.StatusField{Name: name, Description: description, Pos: e.pos}
	return e, nil
}

func newError(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var code, message string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &code, &message); err != nil {
		return nil, err
	}
	if err := checkErrorCode(code); err != nil {
		return nil, &badCodeError{code: code, why: err.Error()}
	}
	if contrib.ReservedCode(code) {
		// A host acts on its own codes (tool_unavailable: safe to retry), so
		// a plugin cannot claim one for a call that ran.
		return nil, &badCodeError{code: code, why: "is reserved for the host", reserved: true}
	}
	return &errorValue{code: code, message: message, pos: callerPos(th, 0)}, nil
}

func depsRequire(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var plugin, name string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &plugin, &name); err != nil {
		return nil, err
	}
	inst, err := threadInstance(th, b.Name())
	if err != nil {
		return nil, err
	}
	if !inst.activating {
		return nil, fmt.Errorf("deps.require(%q, %q): services resolve only during the plugin's own activation (DC13)", plugin, name)
	}
	services, ok := inst.req.Providers[plugin]
	if !ok {
		return nil, fmt.Errorf("deps.require(%q, %q): %s is not a dependency; add it under [dependencies] in plugin.toml", plugin, name, plugin)
	}
	sv, exported := services[name]
	v, ok := sv.(starlark.Value)
	switch {
	case exported && !ok:
		// A provider in a worker process: its services are Starlark
		// values in that process (docs/isolation.md).
		return nil, fmt.Errorf("deps.require(%q, %q): %s runs in process isolation, so its services reach only plugins that run in process isolation too", plugin, name, plugin)
	case !ok:
		return nil, fmt.Errorf("deps.require(%q, %q): %s exports no service %q", plugin, name, plugin, name)
	}
	return v, nil
}
