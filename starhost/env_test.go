package starhost_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// CC14, CC3: before the first attach the environment is empty (nil), so
// no ctx can see a half-built picture; once attach stages begin it lists
// every discovered plugin, this one included.
func TestCC14_EnvironmentEmptyBeforeFirstAttach(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "envy")
	writeTree(t, dir, map[string]string{
		"plugin.toml": "id = \"acme.envy\"\nversion = \"1.0.0\"\n",
		"plugin.star": `def attach(ctx):
    ctx.store["plugins"] = len(ctx.env.plugins)

contribute(attach = attach, tools = [tool(name = "count", catalogs = "work", run = lambda ctx, args: ctx.store.get("plugins", -1))])
`,
	})
	h, err := starhost.New(starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Dev: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if env := starhost.EnvironmentOf(h); env != nil {
		t.Fatalf("before Start: %+v", env)
	}
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	env := starhost.EnvironmentOf(h)
	if env == nil || len(env.Plugins) != 1 || env.Plugins[0].Directory != "envy" || !env.Plugins[0].Loaded {
		t.Fatalf("after Start: %+v", env)
	}
	if got := invoke(t, h, "count", "{}"); got != "1" {
		t.Errorf("attach saw %s plugins", got)
	}
}
