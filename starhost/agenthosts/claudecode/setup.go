package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/agenthosts"
)

// ServerName is the name crystal-star's MCP server has in Claude Code's
// settings: its tools are mcp__crystal-star__NAME, its commands
// /mcp__crystal-star__NAME.
const ServerName = "crystal-star"

// Setup says where and how to install crystal-star into Claude Code.
type Setup struct {
	// Launch starts crystal-star for the hooks, the status line and the
	// MCP server.
	agenthosts.Launch
	// Project is the workspace whose .claude/settings.json and .mcp.json
	// are written; "" writes the user's settings instead.
	Project string
	// ConfigDir is Claude Code's user directory ($CLAUDE_CONFIG_DIR, else
	// ~/.claude); UserFile is its user-scope MCP file ($CLAUDE_CONFIG_DIR/
	// .claude.json, else ~/.claude.json).
	ConfigDir, UserFile string
}

// hookMatchers are the events set-up installs, with their matchers (tool
// events match every tool).
var hookMatchers = [][2]string{{"SessionStart", ""}, {"UserPromptSubmit", ""}, {"PreToolUse", "*"}, {"PostToolUse", "*"},
	{"Stop", ""}, {"PreCompact", ""}, {"SessionEnd", ""}}

func (s Setup) server() map[string]any {
	return map[string]any{"type": "stdio", "command": s.Exe, "args": s.MCPArgs()}
}

// Files merges crystal-star's hooks, status line and MCP server into the
// settings files of the project or the user and returns them (none is
// written: see SettingsFile.Write and Diff), with the notes of entries the
// user already had differently, which are kept.
func (s Setup) Files() ([]*agenthosts.SettingsFile, []string, error) {
	settings, mcp := filepath.Join(s.ConfigDir, "settings.json"), s.UserFile
	if s.Project != "" {
		settings, mcp = filepath.Join(s.Project, ".claude", "settings.json"), filepath.Join(s.Project, ".mcp.json")
	}
	sf, err := agenthosts.ReadSettings(settings)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	hooks, err := agenthosts.Object(sf.Doc, "hooks")
	if err != nil {
		return nil, nil, err
	}
	for _, e := range hookMatchers {
		if err := agenthosts.AddHook(hooks, e[0], e[1], s.HookLine("hook", "claude-code"), nil); err != nil {
			return nil, nil, err
		}
	}
	if agenthosts.SetEntry(sf.Doc, "statusLine", map[string]any{"type": "command", "command": s.HookLine("statusline", "claude-code")}) {
		notes = append(notes, settings+": statusLine is the user's own and stays; crystal-star statusline claude-code prints the operator's line")
	}
	if s.Project != "" {
		// Claude Code asks before it starts a project's MCP server: the
		// operator who ran set-up has answered.
		enabled, _ := sf.Doc["enabledMcpjsonServers"].([]any)
		if !slices.Contains(enabled, any(ServerName)) && (sf.Doc["enabledMcpjsonServers"] == nil || enabled != nil) {
			sf.Doc["enabledMcpjsonServers"] = append(enabled, ServerName)
		}
	}
	mf, err := agenthosts.ReadSettings(mcp)
	if err != nil {
		return nil, nil, err
	}
	servers, err := agenthosts.Object(mf.Doc, "mcpServers")
	if err != nil {
		return nil, nil, err
	}
	if agenthosts.SetEntry(servers, ServerName, s.server()) {
		notes = append(notes, mcp+": mcpServers."+ServerName+" is the user's own and stays")
	}
	return []*agenthosts.SettingsFile{sf, mf}, notes, nil
}

// Bundle returns the files of a Claude Code plugin that installs
// crystal-star — .claude-plugin/plugin.json, hooks/hooks.json and .mcp.json
// — and a one-plugin marketplace beside them (.claude-plugin/
// marketplace.json), so `claude plugin marketplace add DIR` and `claude
// plugin install crystal-star@crystal-star-local` install it. Paths are
// relative to the bundle's directory. A plugin cannot set the status line:
// Files does that.
func (s Setup) Bundle() map[string][]byte {
	hooks := map[string]any{}
	for _, e := range hookMatchers {
		_ = agenthosts.AddHook(hooks, e[0], e[1], s.HookLine("hook", "claude-code"), nil)
	}
	enc := func(v any) []byte {
		b, _ := json.MarshalIndent(v, "", "  ")
		return append(b, '\n')
	}
	desc := "crystal-star plugins in Claude Code: their policies, rewrites and prompt sections as hooks, their tools and commands over MCP"
	return map[string][]byte{
		".claude-plugin/plugin.json": enc(map[string]any{"name": ServerName, "version": starhost.Version, "description": desc,
			"author": map[string]any{"name": "crystal-star"}}),
		".claude-plugin/marketplace.json": enc(map[string]any{"name": "crystal-star-local", "owner": map[string]any{"name": "crystal-star"},
			"plugins": []any{map[string]any{"name": ServerName, "source": "./", "description": desc}}}),
		"hooks/hooks.json": enc(map[string]any{"hooks": hooks}),
		".mcp.json":        enc(map[string]any{"mcpServers": map[string]any{ServerName: s.server()}}),
	}
}

// UserDirs returns Claude Code's user directory and user MCP file:
// $CLAUDE_CONFIG_DIR and the .claude.json in it, else ~/.claude and
// ~/.claude.json.
func UserDirs() (configDir, userFile string) {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d, filepath.Join(d, ".claude.json")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".claude"), filepath.Join(home, ".claude.json")
}
