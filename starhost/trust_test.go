package starhost_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/internal/testkit/hostkit"
	"github.com/crystal-star/crystal-star/starhost"
)

func pluginState(t testing.TB, h *starhost.Host, id string) starhost.PluginInfo {
	t.Helper()
	for _, p := range h.Plugins() {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("no plugin %s", id)
	return starhost.PluginInfo{}
}

var sampleBundle = map[string]string{
	"plugin.toml":    "id = \"acme.sample\"\nversion = \"1.2.0\"\ndisplay_name = \"Sample\"\ndescription = \"d\"\n",
	"plugin.star":    "load(\"lib/a.star\", \"x\")\ncontribute(tools = [tool(name = \"t\", catalogs = \"work\", run = lambda ctx, args: x)])\n",
	"lib/a.star":     "x = \"value\"\n",
	"data/notes.txt": "some data\n",
}

// TestDC18_TamperSweep flips one byte of each bundle file in turn: the
// plugin becomes modified. Changing display_name, description, the .builtin
// marker or a desktop/ file keeps it trusted.
func TestDC18_TamperSweep(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "plugins", "sample")
	testkit.WriteTree(t, dir, sampleBundle)
	h, _ := hostkit.Start(t, starhost.Options{Home: home, Workspace: t.TempDir()})
	if _, err := h.Operator().Grant(context.Background(), "acme.sample"); err != nil {
		t.Fatal(err)
	}
	check := func(what string, want starhost.State, code contrib.Code) {
		t.Helper()
		h2, _ := hostkit.Start(t, starhost.Options{Home: home, Workspace: t.TempDir()})
		p := pluginState(t, h2, "acme.sample")
		if p.State != want {
			t.Fatalf("%s: state %s, want %s (blockers %v)", what, p.State, want, p.Blockers)
		}
		if code != "" && (len(p.Blockers) == 0 || p.Blockers[0].Code != starhost.Code(code)) {
			t.Fatalf("%s: blockers %v, want %s", what, p.Blockers, code)
		}
	}
	check("granted", starhost.StateActive, "")
	for name, body := range sampleBundle {
		if name == "plugin.toml" {
			continue
		}
		for _, i := range []int{0, len(body) / 2, len(body) - 1} {
			tampered := []byte(body)
			tampered[i] ^= 0x20
			testkit.WriteTree(t, dir, map[string]string{name: string(tampered)})
			check(name+" byte flipped", starhost.StateBlocked, contrib.PluginTrustModified)
			testkit.WriteTree(t, dir, map[string]string{name: body})
		}
	}
	testkit.WriteTree(t, dir, map[string]string{"plugin.toml": "# a comment\ndescription = \"other\"\nversion = \"1.2.0\"\nid = \"acme.sample\"\ndisplay_name = \"Renamed\"\n"})
	testkit.WriteTree(t, dir, map[string]string{".builtin": "", "desktop/icon.svg": "<svg/>"})
	check("display name, description, .builtin and desktop/", starhost.StateActive, "")
	testkit.WriteTree(t, dir, map[string]string{"plugin.toml": "id = \"acme.sample\"\nversion = \"1.2.1\"\n"})
	check("version changed", starhost.StateBlocked, contrib.PluginTrustModified)
}

// TestDC20_BuiltinMarkerGrantsNothing: a host-bundled plugin needs a grant
// like any other.
func TestDC20_BuiltinMarkerGrantsNothing(t *testing.T) {
	home := t.TempDir()
	builtin := t.TempDir()
	testkit.WriteTree(t, filepath.Join(builtin, "b"), map[string]string{
		"plugin.toml": "id = \"acme.bundled\"\nversion = \"1.0.0\"\n",
		"plugin.star": "contribute()\n",
		".builtin":    "",
	})
	h, _ := hostkit.Start(t, starhost.Options{Home: home, Workspace: t.TempDir(), Builtin: []string{builtin}})
	if p := pluginState(t, h, "acme.bundled"); p.State != starhost.StateBlocked || p.Blockers[0].Code != starhost.Code(contrib.PluginUntrusted) {
		t.Fatalf("bundled plugin: %s %v, want blocked PluginUntrusted", p.State, p.Blockers)
	}
	if _, err := h.Operator().Grant(context.Background(), "acme.bundled"); err != nil {
		t.Fatal(err)
	}
	if p := pluginState(t, h, "acme.bundled"); p.State != starhost.StateActive {
		t.Fatalf("after grant: %s %v", p.State, p.Blockers)
	}
}
