package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/crystal-star/crystal-star/starhost"
)

var commandsCmd = command{name: "commands",
	summary: "every /command in resolution order: built-in, markdown and plugin (MC6)",
	flags:   []flagSpec{{name: "json", help: "print the list as JSON (docs/cli.md)"}},
	example: "--dev plugins/review commands", run: runCommands}

// cliCommandInfo describes the dev console's built-in verbs for
// Host.Commands (MC6); they are the verbs of cliBuiltinCommands.
var cliCommandInfo = []starhost.CommandInfo{
	{Name: "help", Description: "this list"},
	{Name: "quit", Aliases: []string{"exit"}, Description: "close the host, waiting for teardown"},
	{Name: "plugins", Description: "every plugin with its state and the reclaim facts"},
	{Name: "tools", Description: "the tool catalog, in order"},
	{Name: "call", ArgumentHint: "TOOL [JSON]", Description: "invoke one tool"},
	{Name: "render", ArgumentHint: "TEXT", Description: "bind a template at the prompt site"},
	{Name: "reload", ArgumentHint: "[ID]", Description: "rescan the roots and reload every plugin, or only plugin ID"},
	{Name: "statusline", ArgumentHint: "[add NAME|remove NAME|on|off|reset]", Description: "the operator's status line"},
	{Name: "model", ArgumentHint: "[PROVIDER/MODEL]", Description: "the session model plugins see"},
	{Name: "thinking", ArgumentHint: "LEVEL", Description: "the session thinking level"},
	{Name: "tier", ArgumentHint: "TIER|unset", Description: "the session service tier"},
	{Name: "speed", ArgumentHint: "SPEED|unset", Description: "the session speed"},
	{Name: "approval", ArgumentHint: "[MODE | model PROVIDER/MODEL|off | thinking LEVEL]", Description: "the approval mode and the review model"},
	{Name: "classify", ArgumentHint: "TOOL [JSON]", Description: "the risk and permission of one tool call"},
	{Name: "prompt", Description: "the assembled system prompt of thread dev"},
	{Name: "hook", ArgumentHint: "EVENT JSON", Description: "run one hook event on a payload"},
	{Name: "points", Description: "every contribution point with its entries, and the hooks"},
	{Name: "turn", ArgumentHint: "[TEXT]", Description: "one turn of thread dev"},
	{Name: "dispatch", ArgumentHint: "TOOL [JSON]", Description: "one tool call through the dispatch pipeline"},
	{Name: "mode", ArgumentHint: "[plan|work]", Description: "the session mode; plan runs read-only tools only"},
}

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
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
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
