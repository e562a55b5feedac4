package live

import (
	"encoding/json"
	"os"
)

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 16

// ParentKey is the live key of this process's parent: its pid and start
// time. An agent host that does not give its MCP servers the session's id
// (Gemini CLI) starts them and its hooks from the same process, so its
// MCP server listens under ParentKey and its hooks find it among their
// Ancestors. ok is false where processes cannot be named (not Linux).
func ParentKey() (key string, ok bool) {
	key, _, ok = processKey(os.Getppid())
	return key, ok
}

// Ancestors are the live keys of this process's ancestors, its parent
// first, up to (not including) init.
func Ancestors() []string {
	var keys []string
	for pid := os.Getppid(); pid > 1 && len(keys) < maxAncestors; {
		key, ppid, ok := processKey(pid)
		if !ok {
			break
		}
		keys = append(keys, key)
		pid = ppid
	}
	return keys
}

// Keys are the live keys that may serve an event of agent for session, in
// the order to try them: the session id itself for Claude Code, which
// gives its MCP server the id ($CLAUDE_CODE_SESSION_ID); this process's
// ancestors for Gemini CLI, which does not — the nearest live process
// serving the session answers. event is the hook event or status JSON
// as the agent host wrote it; Claude Code's session id is its session_id.
func Keys(agent string, event []byte) []string {
	if agent == "gemini-cli" {
		return Ancestors()
	}
	var v struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(event, &v) != nil || v.SessionID == "" {
		return nil
	}
	return []string{v.SessionID}
}
