package starhost_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/internal/testkit/hostkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// One rule for operator operations: the error is non-nil exactly when
// nothing was applied and wraps a Code; a success says whether it changed
// anything and how the plugin stands. No reason names a CLI command.
func TestOperatorErrorMeansNothingApplied(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	plugin := map[string]string{
		"plugin.toml": "id = \"acme.op\"\nversion = \"1.0.0\"\n",
		"plugin.star": "contribute(tools = [tool(name = \"t\", catalogs = \"work\", run = lambda ctx, args: \"ok\")])\n",
	}
	testkit.WriteTree(t, filepath.Join(home, "plugins", "op"), plugin)
	testkit.WriteTree(t, filepath.Join(ws, "src", "op"), plugin)
	dev := filepath.Join(t.TempDir(), "dev")
	testkit.WriteTree(t, dev, map[string]string{"plugin.toml": "id = \"acme.dev\"\nversion = \"1.0.0\"\n", "plugin.star": "contribute()\n"})
	h, _ := hostkit.Start(t, starhost.Options{Home: home, Workspace: ws, Dev: []string{dev}})
	op, ctx := h.Operator(), context.Background()

	if _, err := op.Enable(ctx, "acme.nobody", false); !errors.Is(err, starhost.ErrNoPlugin) {
		t.Errorf("enable unknown: %v, want unknown_plugin", err)
	}
	res, err := op.Grant(ctx, "acme.dev")
	if !errors.Is(err, starhost.ErrNotApplied) || res.Changed || res.Plugin == nil || res.Plugin.ID != "acme.dev" {
		t.Errorf("grant a dev plugin: %+v, %v; want not_applied with the plugin", res, err)
	}
	res, err = op.Grant(ctx, "acme.op")
	if err != nil || !res.Changed || res.Plugin == nil || res.Plugin.State != "active" {
		t.Fatalf("grant: %+v, %v; want changed and active", res, err)
	}
	if res, err = op.Grant(ctx, "acme.op"); err != nil || res.Changed {
		t.Errorf("grant again: %+v, %v; want no change, no error", res, err)
	}
	grants, err := op.Grants()
	if err != nil || len(grants) != 1 || grants[0].ID != "acme.op" || grants[0].Fingerprint == "" {
		t.Errorf("grants: %+v, %v", grants, err)
	}
	res, err = op.Install(ctx, filepath.Join(ws, "src", "op"), false)
	if !errors.Is(err, starhost.ErrNotApplied) || !errors.Is(err, starhost.ErrPluginEnabled) || res.Changed {
		t.Errorf("install over an enabled plugin: %+v, %v; want not_applied, plugin_enabled", res, err)
	}
	if err != nil && strings.Contains(err.Error(), "crystal-star") {
		t.Errorf("the library names a CLI command: %v", err)
	}
	if res, err = op.Disable(ctx, "acme.op", false); err != nil || !res.Changed || res.Plugin == nil || res.Plugin.Generation != "" {
		t.Errorf("disable: %+v (%+v), %v; want changed, no generation", res, res.Plugin, err)
	}
	if res, err = op.Install(ctx, filepath.Join(ws, "src", "op"), false); err != nil || !res.Changed {
		t.Errorf("install over a disabled plugin: %+v, %v", res, err)
	}
	if _, err = op.Remove(ctx, "acme.dev"); !errors.Is(err, starhost.ErrNotApplied) {
		t.Errorf("remove a dev plugin: %v, want not_applied", err)
	}
	if res, err = op.Remove(ctx, "acme.op"); err != nil || !res.Changed {
		t.Errorf("remove: %+v, %v", res, err)
	}
}

// Library messages carry no CLI instructions: blockers, stop reasons and
// notes say what to do, never which crystal-star command or dev-console
// verb does it (the CLI adds that, keyed on the code).
func TestLibraryMessagesNameNoCLICommand(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	for _, name := range []string{"untrusted", "disabled"} {
		testkit.WriteTree(t, filepath.Join(home, "plugins", name), map[string]string{
			"plugin.toml": "id = \"acme." + name + "\"\nversion = \"1.0.0\"\n",
			"plugin.star": "contribute()\n",
		})
	}
	testkit.WriteTree(t, home, map[string]string{"config.toml": "disabled = [\"acme.disabled\"]\n"})
	testkit.WriteTree(t, ws, map[string]string{".crystal/config.toml": "trust = true\n"})
	h, notes := hostkit.Start(t, starhost.Options{Home: home, Workspace: ws})
	var texts []string
	for _, p := range h.Plugins() {
		for _, b := range p.Blockers {
			texts = append(texts, b.Message, b.Remedy)
		}
		if r := p.StopReason; r != nil {
			texts = append(texts, r.Message, r.Remedy)
		}
	}
	for _, n := range notes.All() {
		texts = append(texts, n.String())
	}
	if len(texts) < 4 {
		t.Fatalf("want blockers, a stop reason and notes; got %q", texts)
	}
	for _, s := range texts {
		if strings.Contains(s, "crystal-star ") || strings.Contains(s, "/reload") {
			t.Errorf("a library message names a CLI command: %q", s)
		}
	}
}
