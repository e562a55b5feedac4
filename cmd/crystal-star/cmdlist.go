package main

import (
	"fmt"
	"strings"

	"github.com/crystal-star/crystal-star/starhost"
)

var commandsCmd = command{name: "commands",
	summary: "every /command in resolution order: built-in, markdown and plugin (MC6)",
	flags:   []flagSpec{{name: "json", help: "print the list as JSON (docs/cli.md)"}},
	example: "--dev plugins/review commands", run: runCommands}

func runCommands(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) > 0 {
		return usagef("commands takes no arguments")
	}
	h, err := e.start()
	if err != nil {
		return err
	}
	list := h.Commands()
	if f.has("json") {
		return e.printJSON(list)
	}
	tw := newTable(e.stdout)
	for _, c := range list {
		fmt.Fprintf(tw, "%s\t%s\n", commandUsage(c), commandNote(c))
	}
	return tw.Flush()
}

// commandUsage is "/name ARGS (aliases /a, /b)".
func commandUsage(c starhost.CommandInfo) string {
	s := "/" + c.Name
	if c.ArgumentHint != "" {
		s += " " + c.ArgumentHint
	}
	if len(c.Aliases) > 0 {
		s += " (/" + strings.Join(c.Aliases, ", /") + ")"
	}
	return s
}

// commandNote is "description [origin plugin]", marking shadowed entries.
func commandNote(c starhost.CommandInfo) string {
	origin := string(c.Origin)
	if c.Plugin != "" {
		origin += " " + c.Plugin
	}
	if c.Shadowed {
		origin += ", shadowed"
	}
	return strings.TrimSpace(c.Description + " [" + origin + "]")
}

// helpCommands prints the console's /help from Host.Commands: every
// command in resolution order, built-in verbs first.
func (c *console) helpCommands() {
	for _, cmd := range c.h.Commands() {
		c.printf("%s  %s", commandUsage(cmd), commandNote(cmd))
	}
}
