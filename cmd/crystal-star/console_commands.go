package main

import (
	"slices"

	"github.com/crystal-star/crystal-star/starhost"
)

// consoleCommand is one verb of the dev console: what /help and
// Host.Commands show of it, and its handler. rest is the line after the
// verb, trimmed.
type consoleCommand struct {
	info   starhost.CommandInfo
	run    func(c *console, rest string)
	quit   bool // ends the console instead of running
	script bool // for scripts: not a host command; /help names it last
}

// consoleCommands is the dev console's command table, in the order /help
// and `crystal-star commands` list it: adding a verb is one row here and
// its handler beside the feature it shows (docs/cli.md documents each).
// The host reserves these names (BuiltinCommands) so no plugin command can
// take them.
var consoleCommands = []consoleCommand{
	{info: starhost.CommandInfo{Name: "help", Description: "this list"}, run: (*console).help},
	{info: starhost.CommandInfo{Name: "quit", Aliases: []string{"exit"}, Description: "close the host, waiting for teardown"}, quit: true},
	{info: starhost.CommandInfo{Name: "plugins", Description: "every plugin with its state and the reclaim facts"}, run: (*console).plugins},
	{info: starhost.CommandInfo{Name: "tools", Description: "the tool catalog, in order"}, run: (*console).tools},
	{info: starhost.CommandInfo{Name: "call", ArgumentHint: "TOOL [JSON]", Description: "invoke one tool"}, run: (*console).call},
	{info: starhost.CommandInfo{Name: "render", ArgumentHint: "TEXT", Description: "bind a template at the prompt site"}, run: (*console).render},
	{info: starhost.CommandInfo{Name: "reload", ArgumentHint: "[ID]", Description: "rescan the roots and reload every plugin, or only plugin ID"}, run: (*console).reload},
	{info: starhost.CommandInfo{Name: "statusline", ArgumentHint: "[add NAME|remove NAME|on|off|reset]", Description: "the operator's status line"}, run: (*console).statusline},
	// Session settings (dev_models.go, CC20).
	{info: starhost.CommandInfo{Name: "model", ArgumentHint: "[PROVIDER/MODEL]", Description: "the session model plugins see"}, run: (*console).model},
	{info: starhost.CommandInfo{Name: "thinking", ArgumentHint: "LEVEL", Description: "the session thinking level"}, run: (*console).thinking},
	{info: starhost.CommandInfo{Name: "tier", ArgumentHint: "TIER|unset", Description: "the session service tier"}, run: (*console).tier},
	{info: starhost.CommandInfo{Name: "speed", ArgumentHint: "SPEED|unset", Description: "the session speed"}, run: (*console).speed},
	{info: starhost.CommandInfo{Name: "approval", ArgumentHint: "[MODE | model PROVIDER/MODEL|off | thinking LEVEL]", Description: "the approval mode and the review model"}, run: (*console).approval},
	{info: starhost.CommandInfo{Name: "classify", ArgumentHint: "TOOL [JSON]", Description: "the risk and permission of one tool call"}, run: (*console).classify},
	// Contribution points and the turn pipeline (points.go).
	{info: starhost.CommandInfo{Name: "prompt", Description: "the assembled system prompt of thread dev"}, run: (*console).prompt},
	{info: starhost.CommandInfo{Name: "hook", ArgumentHint: "EVENT JSON", Description: "run one hook event on a payload"}, run: (*console).hook},
	{info: starhost.CommandInfo{Name: "points", Description: "every contribution point with its entries, and the hooks"}, run: (*console).points},
	{info: starhost.CommandInfo{Name: "turn", ArgumentHint: "[TEXT]", Description: "one turn of thread dev"}, run: (*console).turn},
	{info: starhost.CommandInfo{Name: "dispatch", ArgumentHint: "TOOL [JSON]", Description: "one tool call through the dispatch pipeline"}, run: (*console).dispatch},
	{info: starhost.CommandInfo{Name: "mode", ArgumentHint: "[plan|work]", Description: "the session mode; plan runs read-only tools only"}, run: (*console).mode},
	// The manual clock (test.go).
	{info: starhost.CommandInfo{Name: "advance", ArgumentHint: "DURATION",
		Description: "run the plugin timers due in DURATION (CRYSTAL_CLOCK=manual, as under crystal-star test)"}, run: (*console).advance},
	{info: waitInfo, run: (*console).wait, script: true},
}

// waitInfo is /wait, which /help names after the host's commands.
var waitInfo = starhost.CommandInfo{Name: "wait", ArgumentHint: "REGEX", Description: "block until the transcript matches (scripts)"}

// findConsoleCommand returns the command a verb (a name or an alias) names,
// or nil.
func findConsoleCommand(verb string) *consoleCommand {
	for i := range consoleCommands {
		cmd := &consoleCommands[i]
		if cmd.info.Name == verb || slices.Contains(cmd.info.Aliases, verb) {
			return cmd
		}
	}
	return nil
}

// cliCommandInfo describes the console's host commands for Host.Commands
// (MC6); the script verbs are not among them.
var cliCommandInfo = func() []starhost.CommandInfo {
	var infos []starhost.CommandInfo
	for _, cmd := range consoleCommands {
		if !cmd.script {
			infos = append(infos, cmd.info)
		}
	}
	return infos
}()

// cliBuiltinCommands are the names and aliases of cliCommandInfo: the
// command names the host reserves for the CLI (CC11).
var cliBuiltinCommands = func() []string {
	var names []string
	for _, info := range cliCommandInfo {
		names = append(append(names, info.Name), info.Aliases...)
	}
	return names
}()

// consoleVerbs are every name and alias of the table, script verbs included.
func consoleVerbs() []string {
	var names []string
	for _, cmd := range consoleCommands {
		names = append(append(names, cmd.info.Name), cmd.info.Aliases...)
	}
	return names
}
