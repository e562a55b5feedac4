package check_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// checkOne checks one plugin of source src and returns its findings.
func checkOne(t *testing.T, src string, files map[string]string) []starhost.Note {
	t.Helper()
	dir := t.TempDir()
	testkit.Plugin{ID: "acme.p", Source: src, Files: files}.Write(t, filepath.Join(dir, "p"))
	r, err := check.Plugins(context.Background(), check.Options{Paths: []string{filepath.Join(dir, "p")},
		Options: checkTestOptions(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	return r.Diagnostics
}

// TestH29_2_SchemaErrorAtTheProperty: a JSON-schema error points at the
// bad property's value in the parameters literal, not at tool(.
func TestH29_2_SchemaErrorAtTheProperty(t *testing.T) {
	const src = `def run(ctx, args):
    return "ok"

contribute(tools = [tool(
    name = "summary",
    catalogs = "work",
    parameters = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "count": {"type": "integer", "minimum": "one"},
        },
    },
    run = run,
)])
`
	ds := checkOne(t, src, nil)
	if len(ds) != 1 || ds[0].Code != "ToolSchemaInvalid" || ds[0].Pos.Line != 11 || ds[0].Pos.Col != 53 {
		t.Errorf("findings %v; want one ToolSchemaInvalid at 11:53, the value of minimum", ds)
	}
}
