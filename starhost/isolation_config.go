package starhost

import (
	"fmt"
	"slices"
	"sort"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/tomlpos"
)

// fileLayer is one config.toml as decoded: Config plus the keys whose TOML
// shape differs from their Config field. `plugins` is the discovery switch
// (plugins = true) or the table of per-plugin settings
// ([plugins."acme.x"] isolation = "process"); a file holds one or the other.
type fileLayer struct {
	Config
	Plugins pluginsKey `toml:"plugins"`
}

// pluginsKey is the `plugins` key: a bool, or a table of plugin settings.
type pluginsKey struct {
	On       bool
	Settings map[string]pluginSettings
	Unknown  []string // keys of plugin tables this host does not know
}

// pluginKeys are the keys of a [plugins."id"] table (pluginSettings).
var pluginKeys = []string{"isolation", "step_budget", "execute"}

// pluginSettings are the settings of one [plugins."id"] table.
type pluginSettings struct {
	Isolation     string
	StepBudget    int64
	StepBudgetSet bool // the table has step_budget
	// Execute names the executors of the plugin's remote tools
	// (docs/remote.md); nil when the table has no execute key.
	Execute []string
}

// UnmarshalTOML reads either shape of the plugins key.
func (p *pluginsKey) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case bool:
		p.On = v
		return nil
	case map[string]any:
		p.On = true // a table of settings keeps discovery on
		p.Settings = map[string]pluginSettings{}
		for id, t := range v {
			table, ok := t.(map[string]any)
			if !ok {
				return fmt.Errorf("plugins.%q must be a table", id)
			}
			var s pluginSettings
			for k, val := range table {
				switch k {
				case "isolation":
					str, ok := val.(string)
					if !ok {
						return fmt.Errorf("plugins.%q.isolation must be a string", id)
					}
					s.Isolation = str
				case "step_budget":
					n, ok := val.(int64)
					if !ok {
						return fmt.Errorf("plugins.%q.step_budget must be a whole number of steps", id)
					}
					s.StepBudget, s.StepBudgetSet = n, true
				case "execute":
					names, err := executeNames(id, val)
					if err != nil {
						return err
					}
					s.Execute = names
				default:
					p.Unknown = append(p.Unknown, fmt.Sprintf("plugins.%q.%s", id, k))
				}
			}
			p.Settings[id] = s
		}
		sort.Strings(p.Unknown)
		return nil
	}
	return fmt.Errorf("plugins must be true, false or a table of plugin settings")
}

// validIsolation reports whether m names an isolation mode.
func validIsolation(m string) bool { return m == IsolationInProcess || m == IsolationProcess }

// stricter reports whether a is at least as strict as b.
func stricter(a, b string) bool { return a == IsolationProcess || b != IsolationProcess }

// mergeIsolation applies one layer's isolation settings (the limits are
// mergeLimits'). The workspace layer comes with the code it would run,
// so it may make isolation stricter, never weaker: a weakening is a note
// and is ignored.
func mergeIsolation(dst *Config, l *layer, workspace bool, note func(contrib.Diagnostic)) {
	mergeWorkers(dst, l, workspace, note)
	bad := func(key string, code contrib.Code, format string, args ...any) {
		note(contrib.Diag(code, "", l.pos(key), format, args...))
	}
	for _, k := range l.file.Plugins.Unknown {
		parts := tomlpos.SplitKey(k)
		bad(k, contrib.ConfigUnknownKey, "unknown config key %s is ignored%s", k, contrib.DidYouMean(parts[len(parts)-1], pluginKeys))
	}
	if l.md.IsDefined("isolation") {
		m := l.file.Isolation
		switch {
		case !validIsolation(m):
			bad("isolation", contrib.ConfigUnknownKey, "isolation %q is neither %q nor %q and is ignored", m, IsolationInProcess, IsolationProcess)
		case workspace && !stricter(m, dst.Isolation):
			bad("isolation", contrib.IsolationWeakened, "isolation %q would weaken the home setting %q and is ignored", m, dst.Isolation)
		default:
			dst.Isolation = m
			if workspace && m == IsolationProcess {
				for id := range dst.PluginIsolation {
					dst.PluginIsolation[id] = m // stricter for every plugin
				}
			}
		}
	}
	ids := make([]string, 0, len(l.file.Plugins.Settings))
	for id := range l.file.Plugins.Settings {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		m := l.file.Plugins.Settings[id].Isolation
		if m == "" {
			continue
		}
		cur, ok := dst.PluginIsolation[id]
		if !ok {
			cur = dst.Isolation
		}
		switch {
		case !validIsolation(m):
			bad(fmt.Sprintf("plugins.%q.isolation", id), contrib.ConfigUnknownKey, "isolation %q for %s is neither %q nor %q and is ignored", m, id, IsolationInProcess, IsolationProcess)
		case workspace && !stricter(m, cur):
			bad(fmt.Sprintf("plugins.%q.isolation", id), contrib.IsolationWeakened, "isolation %q for %s would weaken the home setting %q and is ignored", m, id, cur)
		default:
			if dst.PluginIsolation == nil {
				dst.PluginIsolation = map[string]string{}
			}
			dst.PluginIsolation[id] = m
		}
	}
}
