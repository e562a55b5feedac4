package tomlpos

import (
	"slices"
	"testing"
)

func TestSplitKey(t *testing.T) {
	for in, want := range map[string][]string{
		"memory_limit":                 {"memory_limit"},
		`plugins."acme.x".isolation`:   {"plugins", "acme.x", "isolation"},
		`plugins.'acme.y'.step_budget`: {"plugins", "acme.y", "step_budget"},
		` a . "b\"c" `:                 {"a", `b"c`},
	} {
		if got := SplitKey(in); !slices.Equal(got, want) {
			t.Errorf("SplitKey(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestPosition(t *testing.T) {
	doc := []byte(`# config
bogus = true
memory_limit = "1GiB"
plugins.'acme.z'.foo = 1
[plugins."acme.x"]
  isolation = "process"
[tool_sets.git]
command = "git-mcp"
`)
	for _, c := range []struct {
		key       string
		line, col int
	}{
		{"bogus", 2, 1},
		{"memory_limit", 3, 1},
		{`plugins."acme.x".isolation`, 6, 3},
		{`plugins."acme.x"`, 5, 1},
		{`plugins."acme.z".foo`, 4, 1},
		{"tool_sets.git", 7, 1},
		{"tool_sets.git.command", 8, 1},
		{"absent", 1, 1},
	} {
		if line, col := Position(doc, SplitKey(c.key)); line != c.line || col != c.col {
			t.Errorf("Position(%s) = %d:%d; want %d:%d", c.key, line, col, c.line, c.col)
		}
	}
}
