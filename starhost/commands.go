package starhost

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
)

// CommandOrigin says where a listed command comes from (MC6).
type CommandOrigin string

// The origins, in resolution order: a built-in verb of the embedder always
// wins, then a workspace markdown command, then plugin commands (CC11, DC8).
const (
	OriginBuiltin  CommandOrigin = "builtin"
	OriginMarkdown CommandOrigin = "markdown"
	OriginPlugin   CommandOrigin = "plugin"
)

// CommandInfo lists one command for a palette, completion or a
// command/list surface (MC6, DC8). ArgumentHint is a short usage of what
// follows the name ("QUEUE", "[TEXT]"). Shadowed is set when a command
// earlier in resolution order owns the name, so /name never reaches this
// one (a plugin command can still run by an alias that nothing shadows).
type CommandInfo struct {
	Name         string        `json:"name"`
	Aliases      []string      `json:"aliases"`
	Description  string        `json:"description"`
	ArgumentHint string        `json:"argument_hint"`
	Origin       CommandOrigin `json:"origin"`
	Plugin       string        `json:"plugin"`
	Shadowed     bool          `json:"shadowed"`
}

// Commands lists every command /name can reach, in resolution order:
// the embedder's built-in verbs (described by Options.BuiltinCommandInfo;
// other names of Options.BuiltinCommands are listed bare), workspace
// markdown commands by name, then plugin commands in the order Expand asks
// them (ascending order, load order, registration order). It reads the
// markdown directory and the live view on every call, so a released plugin
// command disappears at once (DC8). Safe for concurrent use.
func (h *Host) Commands() []CommandInfo {
	var out []CommandInfo
	claimed := map[string]bool{}
	add := func(c CommandInfo) {
		c.Shadowed = claimed[strings.ToLower(c.Name)]
		if c.Aliases == nil {
			c.Aliases = []string{}
		}
		out = append(out, c)
		if c.Origin != OriginPlugin { // several plugin commands share a name on purpose (DC8)
			claimed[strings.ToLower(c.Name)] = true
		}
		for _, a := range c.Aliases {
			if c.Origin != OriginPlugin {
				claimed[strings.ToLower(a)] = true
			}
		}
	}
	for _, b := range h.builtinCommandInfo() {
		add(b)
	}
	for _, md := range h.markdownCommands() {
		add(CommandInfo{Name: md.name, Description: md.description, ArgumentHint: md.hint, Origin: OriginMarkdown})
	}
	entries := slices.Clone(h.registry.View().AllCommands())
	slices.SortStableFunc(entries, func(a, b contrib.CommandEntry) int { return cmp.Compare(a.Command.Order, b.Command.Order) })
	for _, c := range entries {
		add(CommandInfo{Name: c.Command.Name, Aliases: slices.Clone(c.Command.Aliases), Description: c.Command.Description,
			ArgumentHint: c.Command.ArgumentHint, Origin: OriginPlugin, Plugin: c.Plugin})
	}
	return out
}

// builtinCommandInfo describes the embedder's verbs: the described ones in
// their order, then every other name of BuiltinCommands that is neither a
// described name nor an alias.
func (h *Host) builtinCommandInfo() []CommandInfo {
	out := make([]CommandInfo, 0, len(h.opts.BuiltinCommands))
	known := map[string]bool{}
	for _, b := range h.opts.BuiltinCommandInfo {
		b.Origin, b.Plugin, b.Aliases = OriginBuiltin, "", slices.Clone(b.Aliases)
		out = append(out, b)
		for _, n := range append([]string{b.Name}, b.Aliases...) {
			known[strings.ToLower(n)] = true
		}
	}
	for _, n := range h.opts.BuiltinCommands {
		if !known[strings.ToLower(n)] {
			known[strings.ToLower(n)] = true
			out = append(out, CommandInfo{Name: n, Origin: OriginBuiltin})
		}
	}
	return out
}

// markdownCmd is one workspace markdown command: the body is the file
// after its front matter, whose description and argument-hint keys are
// listed (the same keys as other agent hosts' markdown commands).
type markdownCmd struct {
	name, description, hint, body string
}

// markdownCommands reads <workspace>/.crystal/commands/*.md, sorted by name;
// files whose name breaks the command-name rule are not commands.
func (h *Host) markdownCommands() []markdownCmd {
	dir := h.paths().Commands()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []markdownCmd
	for _, e := range entries {
		base, isMD := strings.CutSuffix(e.Name(), ".md")
		if !isMD || e.IsDir() || contrib.CheckToolName(base) != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		fields, body := frontMatter(data)
		out = append(out, markdownCmd{name: base, description: fields["description"], hint: fields["argument-hint"], body: body})
	}
	return out
}
