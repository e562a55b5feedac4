package starhost_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestMC6_CommandsListedInResolutionOrder lists built-in verbs, workspace
// markdown commands and plugin commands with name, aliases, description,
// argument hint and origin, in the order /name resolves them, and executes
// one by name, saying which command produced the input.
func TestMC6_CommandsListedInResolutionOrder(t *testing.T) {
	h, _, _ := pointsHost(t, starhost.Options{BuiltinCommands: []string{"help", "quit", "exit"},
		BuiltinCommandInfo: []starhost.CommandInfo{{Name: "quit", Aliases: []string{"exit"}, Description: "leave"}}},
		map[string]string{
			"a": `contribute(commands = [
    command(name = "late", order = 5, description = "asked last", run = lambda ctx, inv: None),
    command(name = "triage", aliases = ["tri"], argument_hint = "QUEUE", description = "triage a queue",
            run = lambda ctx, inv: "triage " + inv.args),
    command(name = "notes", run = lambda ctx, inv: "plugin notes"),
])`,
		})
	dir := filepath.Join(h.Session().Facts().Workspace, ".crystal", "commands")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("---\ndescription: workspace notes\nargument-hint: TOPIC\n---\nNotes on $ARGUMENTS\n"), 0o644)

	got := h.Commands()
	want := []struct {
		name, origin, hint, desc string
		shadowed                 bool
	}{
		{"quit", "builtin", "", "leave", false},
		{"help", "builtin", "", "", false},
		{"notes", "markdown", "TOPIC", "workspace notes", false},
		{"triage", "plugin", "QUEUE", "triage a queue", false},
		{"notes", "plugin", "", "", true},
		{"late", "plugin", "", "asked last", false},
	}
	if len(got) != len(want) {
		t.Fatalf("Commands() = %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.name || string(g.Origin) != w.origin || g.ArgumentHint != w.hint || g.Description != w.desc || g.Shadowed != w.shadowed {
			t.Errorf("command %d = %+v, want %+v", i, g, w)
		}
	}
	if a := got[0].Aliases; len(a) != 1 || a[0] != "exit" {
		t.Errorf("quit aliases = %v", a)
	}
	if got[3].Plugin != "acme.a" || len(got[3].Aliases) != 1 || got[3].Aliases[0] != "tri" {
		t.Errorf("triage = %+v", got[3])
	}

	r, err := h.Session().ExecuteCommand(bg, "tri", "backend")
	if err != nil || !r.Produced || r.Input != "triage backend" || r.Origin != starhost.OriginPlugin || r.Plugin != "acme.a" {
		t.Fatalf("ExecuteCommand(tri) = %+v, %v", r, err)
	}
	r, err = h.Session().ExecuteCommand(bg, "/notes", "x")
	if err != nil || r.Input != "Notes on x\n" || r.Origin != starhost.OriginMarkdown {
		t.Fatalf("ExecuteCommand(notes) = %+v, %v; the markdown body without its front matter", r, err)
	}
	if _, err := h.Session().ExecuteCommand(bg, "exit", ""); !errors.Is(err, starhost.ErrBuiltinCommand) {
		t.Fatalf("ExecuteCommand(exit) err = %v, want ErrBuiltinCommand", err)
	}
}
