// Package layout knows every place crystal-star keeps something on disk,
// in the crystal home ($CRYSTAL_HOME, else ~/.crystal) and in a workspace's
// .crystal directory (docs/lifecycle.md, "Files and places"). No other file
// spells these paths: a test of this package fails if one does.
//
// It imports the standard library only.
package layout

import (
	"os"
	"path/filepath"
)

// The names this package owns. A workspace keeps its files in Dir; the
// home keeps the same files at its top level.
const (
	Dir            = ".crystal"           // a workspace's directory, and the home's default name
	ConfigFile     = "config.toml"        // a configuration layer
	TrustFile      = "plugin-trust.json"  // the trust file, in the home only
	ProvidersFile  = "providers.json"     // the model providers, in the home only
	PluginsDir     = "plugins"            // a plugin root
	SkillsDir      = "skills"             // skills: */SKILL.md
	CommandsDir    = "commands"           // markdown commands: *.md, in the workspace only
	DataDir        = "data"               // data directories: data/plugins/<directory>
	DataOwnersFile = "plugin-owners.json" // which plugin id owns each data directory: data/plugin-owners.json
)

// Paths are the on-disk places of one home and one workspace. The zero
// value names paths relative to the current directory.
type Paths struct {
	Home      string // the crystal home itself (not the user's home)
	Workspace string // the workspace root; its files are under Workspace/.crystal
}

// DefaultHome returns $CRYSTAL_HOME, else ~/.crystal (.crystal in the
// current directory when the user has no home directory).
func DefaultHome() string {
	if v := os.Getenv("CRYSTAL_HOME"); v != "" {
		return v
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return Dir
	}
	return filepath.Join(home, Dir)
}

// WorkspaceDir is <workspace>/.crystal.
func (p Paths) WorkspaceDir() string { return filepath.Join(p.Workspace, Dir) }

// Config is the config.toml of one layer: {home}/config.toml, or with
// project <workspace>/.crystal/config.toml.
func (p Paths) Config(project bool) string {
	if project {
		return filepath.Join(p.WorkspaceDir(), ConfigFile)
	}
	return filepath.Join(p.Home, ConfigFile)
}

// ConfigLayers are both config.toml files in the order they are layered:
// the home's, then the workspace's over it.
func (p Paths) ConfigLayers() []string { return []string{p.Config(false), p.Config(true)} }

// Trust is the trust file, {home}/plugin-trust.json: beside the home
// config, never layered (DC19).
func (p Paths) Trust() string { return filepath.Join(p.Home, TrustFile) }

// WorkspaceTrust is where a trust file in the workspace would be: it is
// never read, only reported as ignored (DC19).
func (p Paths) WorkspaceTrust() string { return filepath.Join(p.WorkspaceDir(), TrustFile) }

// Providers is the model providers file, {home}/providers.json.
func (p Paths) Providers() string { return filepath.Join(p.Home, ProvidersFile) }

// Plugins is the installed plugin root of one layer: {home}/plugins, or with
// project <workspace>/.crystal/plugins.
func (p Paths) Plugins(project bool) string {
	if project {
		return filepath.Join(p.WorkspaceDir(), PluginsDir)
	}
	return filepath.Join(p.Home, PluginsDir)
}

// Data returns the data directories of the plugin in directory (CC29):
// global {home}/data/plugins/<directory>, and project
// <workspace>/.crystal/data/plugins/<directory>.
func (p Paths) Data(directory string) (global, project string) {
	return filepath.Join(p.Home, DataDir, PluginsDir, directory),
		filepath.Join(p.WorkspaceDir(), DataDir, PluginsDir, directory)
}

// DataOwners returns the owner records of the data directories of each
// scope: {home}/data/plugin-owners.json and
// <workspace>/.crystal/data/plugin-owners.json, beside (never inside) the
// plugins' data directories, so no plugin reaches them through ctx.data.
func (p Paths) DataOwners() (global, project string) {
	return filepath.Join(p.Home, DataDir, DataOwnersFile),
		filepath.Join(p.WorkspaceDir(), DataDir, DataOwnersFile)
}

// Skills are the skill roots, the workspace's first: <workspace>/.crystal/skills
// and {home}/skills.
func (p Paths) Skills() []string {
	return []string{filepath.Join(p.WorkspaceDir(), SkillsDir), filepath.Join(p.Home, SkillsDir)}
}

// Commands is the markdown commands directory, <workspace>/.crystal/commands.
func (p Paths) Commands() string { return filepath.Join(p.WorkspaceDir(), CommandsDir) }
