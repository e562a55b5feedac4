package claudecode

import (
	"os"
	"strings"
	"testing"
)

// TestH1_5_ContextFieldSourceIsDocumented checks that docs/agent-hosts.md
// names the key of Claude Code's status JSON each built-in field is read from,
// and that the status line's context field is that key's value.
func TestH1_5_ContextFieldSourceIsDocumented(t *testing.T) {
	data, err := os.ReadFile("../../../docs/agent-hosts.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "### Status line")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, key := range []string{"`context_window.used_percentage`", "`model.display_name`", "`workspace.current_dir`", "`cost.total_cost_usd`", "`session_id`"} {
		if !strings.Contains(section, key) {
			t.Errorf("docs/agent-hosts.md, Status line: does not say the built-in fields come from %s", key)
		}
	}
	st, err := ParseStatus([]byte(`{"session_id":"s1","cwd":"/w","context_window":{"context_window_size":200000,"used_percentage":41.6}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Builtin("context"); got != "42% context" {
		t.Errorf("context from used_percentage 41.6 = %q, want %q (the documented example)", got, "42% context")
	}
	st, err = ParseStatus([]byte(`{"session_id":"s1","cwd":"/w","context_window":{"context_window_size":200000,"used_percentage":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Builtin("context"); got != "" {
		t.Errorf("context with used_percentage null = %q, want empty", got)
	}
}
