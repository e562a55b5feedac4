package starhost

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
)

// TestConfigNotesSayWhere: every note about a config.toml key names the
// line and column that writes it — unknown keys (top level and in a quoted
// plugin table), refused values and workspace tool sets — not only the file.
func TestConfigNotesSayWhere(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "config.toml"), "bogus = true\nmemory_limit = \"lots\"\n\n[plugins.\"acme.x\"]\n  colour = \"red\"\n")
	if err := os.MkdirAll(filepath.Join(ws, ".crystal"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, ".crystal", "config.toml"), "workers = 2\n\n[tool_sets.evil]\ncommand = [\"sh\"]\n")
	var got []contrib.Diagnostic
	loadConfig(home, ws, Limits{}, func(d contrib.Diagnostic) { got = append(got, d) })
	want := map[contrib.Code][2]int{
		contrib.ConfigUnknownKey:        {1, 1}, // bogus; colour below
		contrib.ConfigValueInvalid:      {2, 1},
		contrib.WorkspaceToolSetIgnored: {3, 1},
		contrib.IsolationWeakened:       {1, 1},
	}
	seen := map[contrib.Code]bool{}
	for _, d := range got {
		w, ok := want[d.Code]
		if !ok {
			t.Errorf("unexpected note %s", d)
			continue
		}
		if d.Code == contrib.ConfigUnknownKey && seen[d.Code] {
			w = [2]int{5, 3} // colour, indented under its table
		}
		seen[d.Code] = true
		if d.Pos.Line != w[0] || d.Pos.Col != w[1] {
			t.Errorf("%s at %d:%d; want %d:%d", d, d.Pos.Line, d.Pos.Col, w[0], w[1])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("notes %v; want one of each of %v", got, want)
	}
}
