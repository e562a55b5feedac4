package starhost_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/internal/testkit/hostkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// Start fails only when the host cannot serve: started twice, closed, a
// context already done, a config.toml that exists but cannot be read. A
// broken plugin is not a Start error: it is a note, an event and a faulted
// plugin, while the others serve.
func TestStartErrors(t *testing.T) {
	root := t.TempDir()
	testkit.WriteTree(t, root, map[string]string{
		"good/plugin.toml": "id = \"acme.good\"\nversion = \"1.0.0\"\n",
		"good/plugin.star": "contribute(tools = [tool(name = \"ok\", catalogs = \"work\", run = lambda ctx, args: \"ok\")])\n",
		"bad/plugin.toml":  "id = \"acme.bad\"\nversion = \"1.0.0\"\n",
		"bad/plugin.star":  "x = {}[\"missing\"]\n",
	})
	var events []string
	h, err := starhost.New(starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Dev: []string{root},
		Events: func(e starhost.Event) { events = append(events, e.Plugin+":"+string(e.Kind)) }})
	if err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Start(done); !errors.Is(err, starhost.ErrCancelled) {
		t.Fatalf("start with a done context: %v, want cancelled", err)
	}
	if err := h.Start(context.Background()); err != nil {
		t.Fatalf("a broken plugin is not a Start error: %v", err)
	}
	if got := invoke(t, h, "ok", "{}"); got != "ok" {
		t.Errorf("the good plugin: %s", got)
	}
	if !strings.Contains(strings.Join(events, " "), "acme.bad:faulted") {
		t.Errorf("events %v: want acme.bad faulted", events)
	}
	if err := h.Start(context.Background()); !errors.Is(err, starhost.ErrHostStarted) {
		t.Fatalf("second start: %v, want host_started", err)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatalf("a second Close is harmless: %v", err)
	}
	if err := h.Start(context.Background()); !errors.Is(err, starhost.ErrHostClosed) {
		t.Fatalf("start after close: %v, want host_closed", err)
	}
}

// A config.toml that exists but does not parse stops Start: serving
// without it could run a plugin the operator disabled there.
func TestStartFailsOnUnreadableConfig(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("disabled = [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := starhost.New(starhost.Options{Home: home, Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	err = h.Start(context.Background())
	if !errors.Is(err, starhost.Code("ConfigUnreadable")) || !strings.Contains(err.Error(), "config.toml") {
		t.Fatalf("start: %v, want ConfigUnreadable naming the file", err)
	}
}

// AT3: Reload is nil when the new generation serves or nothing changed,
// ErrNoPlugin for a directory no plugin lives in, and an error wrapping
// the failed attempt's code when the previous generation is kept, which
// keeps serving.
func TestAT3_ReloadErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	testkit.WriteTree(t, dir, map[string]string{
		"plugin.toml": "id = \"acme.r\"\nversion = \"1.0.0\"\n",
		"plugin.star": "contribute(tools = [tool(name = \"v\", catalogs = \"work\", run = lambda ctx, args: \"one\")])\n",
	})
	h, _ := hostkit.Start(t, starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Dev: []string{dir}})
	ctx := context.Background()
	if err := h.Reload(ctx, dir); err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	if err := h.Reload(ctx, filepath.Join(dir, "nowhere")); !errors.Is(err, starhost.ErrNoPlugin) {
		t.Fatalf("unknown dir: %v, want unknown_plugin", err)
	}
	testkit.WriteTree(t, dir, map[string]string{"plugin.star": "x = {}[\"missing\"]\n"})
	err := h.Reload(ctx, dir)
	if !errors.Is(err, starhost.Code("ExecutionFailed")) || !strings.Contains(err.Error(), "keeps serving") {
		t.Fatalf("failed reload: %v, want ExecutionFailed and the kept generation", err)
	}
	if got := invoke(t, h, "v", "{}"); got != "one" {
		t.Fatalf("after a failed reload the old generation serves: %s", got)
	}
	testkit.WriteTree(t, dir, map[string]string{"plugin.star": "contribute(tools = [tool(name = \"v\", catalogs = \"work\", run = lambda ctx, args: \"two\")])\n"})
	if err := h.Reload(ctx, dir); err != nil {
		t.Fatalf("good reload: %v", err)
	}
	if got := invoke(t, h, "v", "{}"); got != "two" {
		t.Fatalf("after a good reload: %s", got)
	}
}
