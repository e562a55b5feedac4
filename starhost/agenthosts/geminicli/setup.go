package geminicli

import (
	"os"
	"path/filepath"

	"github.com/crystal-star/crystal-star/starhost/agenthosts"
)

// ServerName is the name crystal-star's MCP server has in Gemini CLI's
// settings.
const ServerName = "crystal-star"

// Setup says where and how to install crystal-star into Gemini CLI.
type Setup struct {
	// Launch starts crystal-star for the hooks and the MCP server.
	agenthosts.Launch
	// Project is the workspace whose .gemini/settings.json is written; ""
	// writes the user's ~/.gemini/settings.json (UserDir).
	Project string
	UserDir string
}

// Files merges crystal-star's hooks and MCP server into Gemini CLI's
// settings file and returns it, with notes of entries the user already had
// differently (kept). Gemini CLI has no status-line command.
func (s Setup) Files() ([]*agenthosts.SettingsFile, []string, error) {
	path := filepath.Join(s.UserDir, "settings.json")
	if s.Project != "" {
		path = filepath.Join(s.Project, ".gemini", "settings.json")
	}
	f, err := agenthosts.ReadSettings(path)
	if err != nil {
		return nil, nil, err
	}
	hooks, err := agenthosts.Object(f.Doc, "hooks")
	if err != nil {
		return nil, nil, err
	}
	cmd := s.HookLine("hook", "gemini-cli")
	for _, e := range Events {
		if err := agenthosts.AddHook(hooks, e, "", cmd, map[string]any{"name": "crystal-star"}); err != nil {
			return nil, nil, err
		}
	}
	servers, err := agenthosts.Object(f.Doc, "mcpServers")
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	if agenthosts.SetEntry(servers, ServerName, map[string]any{"command": s.Exe, "args": s.MCPArgs()}) {
		notes = append(notes, path+": mcpServers."+ServerName+" is the user's own and stays")
	}
	return []*agenthosts.SettingsFile{f}, notes, nil
}

// UserDir is Gemini CLI's user directory, ~/.gemini.
func UserDir() string {
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".gemini")
}
