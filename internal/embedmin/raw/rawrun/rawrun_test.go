package rawrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Both baselines run plugins through these functions: the tools a plugin
// contributes are recorded and called by name, a non-string result is
// printed, and an unknown tool is an error naming it.
func TestRawrun_ExecAndCall(t *testing.T) {
	dir := t.TempDir()
	src := `def echo(ctx, args):
    return "echo: " + args

def count(ctx, args):
    return len(args)

contribute(tools = [tool(name = "echo", run = echo), tool(name = "count", run = count)])
`
	if err := os.WriteFile(filepath.Join(dir, "plugin.star"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tools := Tools{}
	th := &starlark.Thread{Name: "test"}
	if err := Exec(th, &syntax.FileOptions{}, dir, "plugin.star", tools.Predeclared(nil)); err != nil {
		t.Fatal(err)
	}
	if got, err := tools.Call(th, "echo", starlark.String("hi")); err != nil || got != "echo: hi" {
		t.Errorf("echo: %q, %v", got, err)
	}
	if got, err := tools.Call(th, "count", starlark.String("abc")); err != nil || got != "3" {
		t.Errorf("count: %q, %v", got, err)
	}
	if _, err := tools.Call(th, "nope", starlark.None); err == nil || err.Error() != "unknown tool nope" {
		t.Errorf("unknown tool: %v", err)
	}
}

// rawrun is part of the go.starlark.net-only baseline: beyond itself it
// links only what go.starlark.net links.
func TestRawrun_LinksStarlarkAlone(t *testing.T) {
	deps := func(pkgs ...string) []string {
		args := append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, pkgs...)
		out, err := exec.Command("go", args...).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(out))
	}
	starlarkDeps := map[string]bool{}
	for _, p := range deps("go.starlark.net/starlark", "go.starlark.net/starlarkstruct", "go.starlark.net/syntax") {
		starlarkDeps[p] = true
	}
	for _, p := range deps(".") {
		if !starlarkDeps[p] && !strings.HasSuffix(p, "/internal/embedmin/raw/rawrun") {
			t.Errorf("rawrun links %s", p)
		}
	}
}
