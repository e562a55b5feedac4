package agenthosts_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost/agenthosts"
	"github.com/crystal-star/crystal-star/starhost/agenthosts/claudecode"
	"github.com/crystal-star/crystal-star/starhost/agenthosts/geminicli"
)

// Both agent hosts read their events through one agenthosts.ParseEvent: the
// common fields land in the shared agenthosts.Event, each host's own
// fields beside them, and an error names the host it expected.
func TestAgentHosts_OneEventParser(t *testing.T) {
	data := []byte(`{"session_id": "s1", "cwd": "/w", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": {"command": "ls"}, "prompt": "hi", "tool_use_id": "tu1", "prompt_response": "done"}`)
	cc, err := claudecode.ParseEvent(data)
	if err != nil || cc.SessionID != "s1" || cc.Cwd != "/w" || cc.EventName() != "PreToolUse" || cc.ToolUseID != "tu1" || cc.Prompt != "hi" {
		t.Errorf("claude code: %+v, %v", cc, err)
	}
	gc, err := geminicli.ParseEvent(data)
	if err != nil || gc.SessionID != "s1" || gc.PromptResponse != "done" {
		t.Errorf("gemini cli: %+v, %v", gc, err)
	}
	if name, input := gc.ToolCall(); name != "Bash" || string(input) != `{"command": "ls"}` {
		t.Errorf("gemini cli tool call: %s %s", name, input)
	}
	for host, parse := range map[string]func([]byte) (agenthosts.HookEvent, error){
		"Claude Code": func(d []byte) (agenthosts.HookEvent, error) { return claudecode.ParseEvent(d) },
		"Gemini CLI":  func(d []byte) (agenthosts.HookEvent, error) { return geminicli.ParseEvent(d) },
	} {
		if _, err := parse([]byte("[1]")); err == nil || !strings.Contains(err.Error(), "not a "+host+" hook event as JSON") {
			t.Errorf("%s, not an object: %v", host, err)
		}
		if _, err := parse([]byte(`{"cwd": "/w"}`)); err == nil || !strings.Contains(err.Error(), "configured as a "+host+" hook") {
			t.Errorf("%s, no event name: %v", host, err)
		}
	}
}

// Both agent hosts' set-ups start crystal-star from one Launch: the hooks
// run HookExe (the forwarder) with the global flags, the MCP server Exe
// with them and "mcp".
func TestAgentHosts_SetupsShareLaunch(t *testing.T) {
	launch := agenthosts.Launch{Exe: "/bin/crystal-star", HookExe: "/bin/crystal-star-hook", Args: []string{"--dev", "my plugins"}}
	dir := t.TempDir()
	cc, _, err := claudecode.Setup{Launch: launch, Project: dir}.Files()
	if err != nil {
		t.Fatal(err)
	}
	gc, _, err := geminicli.Setup{Launch: launch, Project: dir}.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		doc  map[string]any
		want []string
	}{
		{cc[0].Doc, []string{`"/bin/crystal-star-hook --dev 'my plugins' hook claude-code"`, `"/bin/crystal-star-hook --dev 'my plugins' statusline claude-code"`}},
		{cc[1].Doc, []string{`"command":"/bin/crystal-star"`, `"args":["--dev","my plugins","mcp"]`}},
		{gc[0].Doc, []string{`"/bin/crystal-star-hook --dev 'my plugins' hook gemini-cli"`, `"command":"/bin/crystal-star"`, `"args":["--dev","my plugins","mcp"]`}},
	} {
		data, _ := json.Marshal(c.doc)
		for _, w := range c.want {
			if !strings.Contains(string(data), w) {
				t.Errorf("settings lack %s:\n%s", w, data)
			}
		}
	}
	if got := launch.MCPArgs(); len(launch.Args) != 2 || len(got) != 3 {
		t.Errorf("MCPArgs changed Args: %v, %v", launch.Args, got)
	}
}
