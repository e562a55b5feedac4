package starhost

import (
	"path/filepath"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
)

// environment returns what plugins see on ctx.env (CC19), or nil before the
// first attach (CC3, CC14). It lists every discovered plugin directory (no
// paths), the external tool sets and loaded external tools, and the skills;
// built-in tools are never listed.
func (h *Host) environment() *builtins.Environment {
	if !h.attached.Load() {
		return nil
	}
	env := &builtins.Environment{}
	for _, p := range h.manager.Plugins() {
		ep := builtins.EnvPlugin{Directory: filepath.Base(p.Directory), Source: string(p.Source),
			DisplayName: p.DisplayName, Enabled: p.Enabled, Effective: p.State == lifecycle.Active,
			Loaded: p.Generation != ""}
		if !ep.Loaded {
			ep.SkipReason = skipReason(p)
		}
		env.Plugins = append(env.Plugins, ep)
	}
	// A tool says where its set came from, as the set does: "home" for a
	// set of {home}/config.toml, "external" for the embedder's own sets and
	// for a tool of no set.
	setSource := map[string]string{}
	for _, s := range h.ToolSets() {
		source := "external" // the embedder's own sets, as before
		if s.Source == "home" {
			source = "home"
		}
		setSource[s.Name] = source
		enabled := s.Enabled
		env.ToolSets = append(env.ToolSets, builtins.EnvPlugin{Directory: s.Name, Source: source, DisplayName: s.Name,
			Enabled: &enabled, Effective: s.Effective, Loaded: s.Loaded, SkipReason: s.SkipReason})
	}
	for _, t := range h.registry.Tools(contrib.PlanAndWork).List() {
		if t.Plugin != "" || t.Name == "skill" && t.ToolSet == "" {
			continue
		}
		catalogs := t.Catalogs
		if catalogs == "plan_and_work" {
			catalogs = "both"
		}
		source := setSource[t.ToolSet]
		if source == "" {
			source = "external"
		}
		env.ExternalTools = append(env.ExternalTools, builtins.EnvTool{Name: t.Name, Set: t.ToolSet, Source: source, Catalogs: catalogs})
	}
	for _, s := range h.Skills() {
		env.Skills = append(env.Skills, builtins.EnvSkill{Name: s.Name, Description: s.Description})
	}
	return env
}

// skipReason says in a few words why a plugin is not loaded.
func skipReason(p lifecycle.Projection) string {
	if p.StopReason != nil {
		return string(p.StopReason.Code)
	}
	if len(p.Blockers) > 0 {
		return string(p.Blockers[0].Code)
	}
	switch p.State {
	case lifecycle.Faulted:
		return "faulted"
	case lifecycle.Stopped, lifecycle.Reclaiming:
		return "stopped"
	}
	return string(p.State)
}
