package main

import (
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// TestH29_5_CtrlCRule is the rule of Ctrl-C at the prompt: it clears a
// half-typed line; on an empty line it prints the hint, and a second one
// in a row quits; a line entered in between starts over.
func TestH29_5_CtrlCRule(t *testing.T) {
	var i interrupts
	steps := []struct {
		line     string // the line being edited at Ctrl-C; "\n" = a line entered
		quit     bool
		wantHint bool
	}{
		{line: "/cal"},             // clears the line
		{line: "", wantHint: true}, // empty: the hint
		{line: "\n"},               // a line entered
		{line: "", wantHint: true}, // starts over: the hint again
		{line: "/t"},               // text typed: disarms
		{line: "", wantHint: true}, // the hint again
		{line: "", quit: true},     // the second in a row quits
	}
	for n, s := range steps {
		if s.line == "\n" {
			i.reset()
			continue
		}
		quit, hint := i.interrupt(s.line)
		if quit != s.quit || (hint != "") != s.wantHint {
			t.Errorf("step %d (Ctrl-C on %q): quit %v, hint %q; want quit %v, hint %v", n, s.line, quit, hint, s.quit, s.wantHint)
		}
	}
}

// TestH29_5_CtrlCOnTheTerminal drives the rule on a real pseudo-terminal:
// Ctrl-C clears a half-typed line (the next command runs alone), the first
// Ctrl-C on an empty line prints the hint and keeps the console, and two
// in a row quit.
func TestH29_5_CtrlCOnTheTerminal(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	plugin := filepath.Join(dir, "echo")
	testkit.Plugin{ID: "acme.echo", Source: `
contribute(tools = [tool(name = "echo_text", catalogs = "work", run = lambda ctx, args: "echo:" + args.get("text", ""))])
`}.Write(t, plugin)
	t.Setenv("NO_COLOR", "1")
	term, code := startDev(t, plugin, home)
	term.expect(`ready: 1 plugins, 1 active`)

	// Ctrl-C drops "garbage"; what follows runs alone.
	term.typeKeys("garbage\x03")
	term.expect(`\^C`)
	term.typeKeys(`/call echo_text {"text": "after"}` + "\r")
	term.expect(`echo:after`)

	// The first Ctrl-C on an empty line only says how to quit.
	term.typeKeys("\x03")
	term.expect(`\(Ctrl-C again to quit, or Ctrl-D, or /quit\)`)
	term.typeKeys(`/call echo_text {"text": "still here"}` + "\r")
	term.expect(`echo:still here`)

	// Two in a row quit.
	term.typeKeys("\x03")
	term.expect(`Ctrl-C again to quit`)
	term.typeKeys("\x03")
	term.expect(`stopped in`)
	if c := <-code; c != 0 {
		t.Fatalf("dev exited %d", c)
	}
}
