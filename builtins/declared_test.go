package builtins

import (
	"slices"
	"testing"
)

// TestH24_11_DeclaredToolNames proves the tool names a bundle declares are
// read from its literals without running it: keyword or first positional
// name, in any .star file, a broken file contributing nothing (issue 24,
// point 11).
func TestH24_11_DeclaredToolNames(t *testing.T) {
	got := DeclaredToolNames(map[string][]byte{
		"plugin.star":  []byte("x = 1 // 0\ncontribute(tools = [tool(name = \"hello\", run = f), tool(\"second\", run = f)])\n"),
		"lib/a.star":   []byte("t = tool(catalogs = \"work\", name = \"from_lib\")\nu = tool(name = computed)\nv = other(name = \"not_a_tool\")\n"),
		"broken.star":  []byte("tool(name = \"never\"\n"),
		"notes.txt":    []byte("tool(name = \"text\")"),
		"dup.star":     []byte("tool(name = \"hello\")\n"),
		"nested.star":  []byte("def f():\n    return [tool(name = \"inner\")]\n"),
		"empty.star":   []byte(""),
		"blank.star":   []byte("tool(name = \" \")\n"),
		"second.star":  []byte("tool(name = \"z\", description = \"tool(name = 'q')\")\n"),
		"keyword.star": []byte("tool(run = f, name = \"kw\")\n"),
	})
	want := []string{"from_lib", "hello", "inner", "kw", "second", "z"}
	if !slices.Equal(got, want) {
		t.Errorf("DeclaredToolNames = %q, want %q", got, want)
	}
}
