package starhost

import (
	"errors"
	"fmt"
	"slices"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/layout"
)

// ToolSetConfig declares one external tool set in {home}/config.toml (MC7):
//
//	[tool_sets.github]
//	command = ["github-mcp-server", "stdio"]   # an MCP server on stdin/stdout
//	# url = "https://example.com/mcp"         # or Streamable HTTP
//	catalogs = "plan_and_work"                 # default "work"
//	enabled = true                             # default true
//
// Exactly one of Command and URL is set.
type ToolSetConfig struct {
	Command  []string `toml:"command"`
	URL      string   `toml:"url"`
	Catalogs string   `toml:"catalogs"`
	Enabled  *bool    `toml:"enabled"`
}

// IsEnabled reports the enabled switch (default true).
func (c ToolSetConfig) IsEnabled() bool { return c.Enabled == nil || *c.Enabled }

// Catalog returns the catalogs the set's tools are listed in (default work).
func (c ToolSetConfig) Catalog() Catalog {
	if cat, err := contrib.ParseCatalog(c.Catalogs); err == nil {
		return Catalog(cat)
	}
	return Work
}

// Validate returns nil when the declaration can start, and otherwise an
// error saying why.
func (c ToolSetConfig) Validate() error {
	switch {
	case len(c.Command) > 0 && c.URL != "":
		return errors.New("declares both command and url; keep one")
	case len(c.Command) == 0 && c.URL == "":
		return errors.New("declares neither command nor url")
	case c.Catalogs != "":
		if _, err := contrib.ParseCatalog(c.Catalogs); err != nil {
			return fmt.Errorf("catalogs = %q; want \"plan\", \"work\" or \"plan_and_work\"", c.Catalogs)
		}
	}
	return nil
}

// ToolSetNames returns the names of the declared tool sets, sorted: the
// order of their tools in the catalog (CC6).
func (c Config) ToolSetNames() []string {
	names := make([]string, 0, len(c.ToolSets))
	for n := range c.ToolSets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ignoreWorkspaceToolSets drops a workspace layer's tool sets with a
// diagnostic each: a cloned repository must never start a process.
func ignoreWorkspaceToolSets(l *layer, home string, note func(contrib.Diagnostic)) {
	for _, name := range (Config{ToolSets: l.cfg.ToolSets}).ToolSetNames() {
		note(contrib.Diag(contrib.WorkspaceToolSetIgnored, "", l.pos(fmt.Sprintf("tool_sets.%q", name)),
			"tool set %q is ignored: a workspace config.toml may not declare tool sets; declare it in %s", name,
			layout.Paths{Home: home}.Config(false)))
	}
	l.cfg.ToolSets = nil
}
