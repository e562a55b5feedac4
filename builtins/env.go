package builtins

import (
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// Environment is the read-only picture of the host a plugin sees on ctx.env
// (CC19). It enables, disables, invokes, reorders and declares nothing, and
// holds no file paths or entry names. Built-in tools are not listed.
type Environment struct {
	Plugins       []EnvPlugin
	ToolSets      []EnvPlugin // discovered external tool sets, same fields
	ExternalTools []EnvTool
	Skills        []EnvSkill
}

// EnvPlugin is one discovered plugin directory (or tool set). Enabled is
// nil when the manifest could not say; DisplayName is empty until loaded.
type EnvPlugin struct {
	Directory   string
	Source      string
	DisplayName string
	Enabled     *bool
	Effective   bool
	Loaded      bool
	SkipReason  string
}

// EnvTool is one loaded external tool; Catalogs is plan, work or both.
type EnvTool struct{ Name, Set, Source, Catalogs string }

// EnvSkill is one skill the skill tool can load now: no body, no path.
type EnvSkill struct{ Name, Description string }

// EnvironmentSource is implemented by Services that describe the
// environment. It returns nil before the first attach (CC3, CC14): during
// module execution every ctx.env is empty.
type EnvironmentSource interface {
	Environment() *Environment
}

// envCtx is ctx.env: empty during module execution and before the host
// has an environment.
func envCtx(c *callCtx) starlark.Value {
	var env *Environment
	if src, ok := c.inst.req.Services.(EnvironmentSource); ok && !c.inst.activating {
		env = src.Environment()
	}
	return envValue(env)
}

// envValue converts an environment (nil: empty) into ctx.env.
func envValue(env *Environment) starlark.Value {
	if env == nil {
		env = &Environment{}
	}
	plugins := func(ps []EnvPlugin, key string) starlark.Value {
		out := make([]starlark.Value, len(ps))
		for i, p := range ps {
			var enabled starlark.Value = starlark.None
			if p.Enabled != nil {
				enabled = starlark.Bool(*p.Enabled)
			}
			out[i] = record("plugin", starlark.StringDict{
				key: starlark.String(p.Directory), "source": starlark.String(p.Source),
				"display_name": starlark.String(p.DisplayName), "enabled": enabled,
				"effective": starlark.Bool(p.Effective), "loaded": starlark.Bool(p.Loaded),
				"skip_reason": starlark.String(p.SkipReason),
			})
		}
		return starlark.Tuple(out)
	}
	tools := make([]starlark.Value, len(env.ExternalTools))
	for i, t := range env.ExternalTools {
		tools[i] = record("external_tool", starlark.StringDict{"name": starlark.String(t.Name), "set": starlark.String(t.Set),
			"source": starlark.String(t.Source), "catalogs": starlark.String(t.Catalogs)})
	}
	skills := make([]starlark.Value, len(env.Skills))
	for i, s := range env.Skills {
		skills[i] = record("skill", starlark.StringDict{"name": starlark.String(s.Name), "description": starlark.String(s.Description)})
	}
	return record("env", starlark.StringDict{
		"plugins":        plugins(env.Plugins, "directory"),
		"tool_sets":      plugins(env.ToolSets, "name"),
		"external_tools": starlark.Tuple(tools),
		"skills":         starlark.Tuple(skills),
	})
}

// record returns an immutable struct value.
func record(name string, fields starlark.StringDict) *starlarkstruct.Struct {
	return starlarkstruct.FromStringDict(starlark.String(name), fields)
}
