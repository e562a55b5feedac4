package starhost

import (
	"fmt"
	"maps"
	"slices"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/layout"
)

// ExecutorConfig declares one remote tool executor in {home}/config.toml
// (docs/remote.md):
//
//	[executors.ci]
//	url = "http://10.0.0.7:7311"     # the executor's base URL
//	token_env = "CI_EXECUTOR_TOKEN"  # the variable holding its bearer token
//
//	[plugins."acme.grep"]
//	execute = ["ci", "gpu"]          # or one name: spread calls over them
type ExecutorConfig struct {
	URL      string `toml:"url"`
	TokenEnv string `toml:"token_env"`
}

// executeNames reads an execute key: one executor name or a list.
func executeNames(id string, v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("plugins.%q.execute must be an executor name or a list of names", id)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("plugins.%q.execute must be an executor name or a list of names", id)
}

// executeSettings collects the execute keys of the home layer.
func executeSettings(l *layer) map[string][]string {
	var out map[string][]string
	for id, s := range l.file.Plugins.Settings {
		if s.Execute != nil {
			if out == nil {
				out = map[string][]string{}
			}
			out[id] = s.Execute
		}
	}
	return out
}

// ignoreWorkspaceExecutors drops a workspace layer's executors and execute
// keys with a diagnostic each: a cloned repository must never send a
// plugin's calls, or its token, to a machine of its choosing.
func ignoreWorkspaceExecutors(l *layer, home string, note func(contrib.Diagnostic)) {
	where := layout.Paths{Home: home}.Config(false)
	for _, name := range slices.Sorted(maps.Keys(l.cfg.Executors)) {
		note(contrib.Diag(contrib.WorkspaceToolSetIgnored, "", l.pos(fmt.Sprintf("executors.%q", name)),
			"executor %q is ignored: a workspace config.toml may not declare executors; declare it in %s", name, where))
	}
	for _, id := range slices.Sorted(maps.Keys(executeSettings(l))) {
		note(contrib.Diag(contrib.WorkspaceToolSetIgnored, "", l.pos(fmt.Sprintf("plugins.%q.execute", id)),
			"plugins.%q.execute is ignored: a workspace config.toml may not route a plugin to executors; set it in %s", id, where))
	}
	l.cfg.Executors = nil
}

// ExecutorsOf returns the executors plugin id's remote tools run on, as
// configured in the home config.toml, in the order given; nil when its
// remote tools run in the host. A name with no [executors.NAME] is
// returned with an empty URL: its calls answer tool_unavailable.
func (c Config) ExecutorsOf(id string) []NamedExecutor {
	names := c.PluginExecute[id]
	out := make([]NamedExecutor, 0, len(names))
	for _, n := range names {
		out = append(out, NamedExecutor{Name: n, ExecutorConfig: c.Executors[n]})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// NamedExecutor is one executor a plugin is routed to.
type NamedExecutor struct {
	Name string
	ExecutorConfig
}
