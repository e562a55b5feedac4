package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
)

// command is one subcommand: its runner and everything help says about it.
type command struct {
	name    string
	args    string // the positional arguments, as usage shows them: "TOOL [JSON]"
	summary string // one line for the command list
	flags   []flagSpec
	example string // one runnable command line, without the "crystal-star " prefix
	run     func(e *env, args []string) error
}

// flagSpec is one flag of a command. A flag with a value names it in
// value ("FILE"); a flag without one is a switch.
type flagSpec struct {
	name, value, help string
}

func findFlag(flags []flagSpec, name string) *flagSpec {
	for i := range flags {
		if flags[i].name == name {
			return &flags[i]
		}
	}
	return nil
}

// flags parses args with the flags the running command declares.
func (e *env) flags(args []string) (*cmdFlags, error) {
	var bools, values []string
	for _, f := range e.cmd.flags {
		if f.value == "" {
			bools = append(bools, f.name)
		} else {
			values = append(values, f.name)
		}
	}
	return parseFlags(args, bools, values)
}

// usageLine is "crystal-star NAME [FLAGS] ARGS".
func (c *command) usageLine() string {
	parts := []string{"crystal-star", c.name}
	for _, f := range c.flags {
		if f.value == "" {
			parts = append(parts, "[--"+f.name+"]")
		} else {
			parts = append(parts, "[--"+f.name+" "+f.value+"]")
		}
	}
	if c.args != "" {
		parts = append(parts, c.args)
	}
	return strings.Join(parts, " ")
}

var helpCmd = command{name: "help", args: "[COMMAND]", summary: "the list of commands, or one command's usage",
	example: "help check"}

var versionCmd = command{name: "version", summary: "the version of crystal-star, Go and go.starlark.net",
	example: "version", run: runVersion}

// printCommands prints the command list on stdout.
func printCommands(e *env) error {
	fmt.Fprintln(e.stdout, "usage: crystal-star [--home DIR] [--workspace DIR] [--dev DIR]... [--color WHEN] COMMAND [ARGS]")
	fmt.Fprintln(e.stdout, "\ncommands:")
	tw := newTable(e.stdout)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprintln(e.stdout, "\nrun 'crystal-star help COMMAND' (or COMMAND --help) for a command's flags and an example")
	return nil
}

// printUsage prints one command's usage, flags and example on stdout.
func printUsage(e *env, c *command) {
	fmt.Fprintf(e.stdout, "usage: %s\n\n%s\n", c.usageLine(), c.summary)
	tw := newTable(e.stdout)
	printFlags := func(title string, flags []flagSpec) {
		if len(flags) == 0 {
			return
		}
		fmt.Fprintf(tw, "\n%s:\n", title)
		for _, f := range flags {
			fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimSpace("--"+f.name+" "+f.value), f.help)
		}
	}
	printFlags("flags", c.flags)
	printFlags("global flags", globalFlags)
	tw.Flush()
	if c.example != "" {
		fmt.Fprintf(e.stdout, "\nexample:\n  crystal-star %s\n", c.example)
	}
}

func runHelp(e *env, args []string) error {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return usagef("help takes no flags, got %s; usage: crystal-star help [COMMAND]", a)
		}
	}
	switch len(args) {
	case 0:
		return printCommands(e)
	case 1:
		c := findCommand(args[0])
		if c == nil {
			return usagef("help: unknown command %q%s", args[0], didYouMean(args[0], commandNames(), ""))
		}
		printUsage(e, c)
		return nil
	}
	return usagef("usage: crystal-star help [COMMAND]")
}

// runVersion prints the host version and the versions of Go and
// go.starlark.net this binary was built with.
func runVersion(e *env, args []string) error {
	if len(args) > 0 {
		return usagef("version takes no arguments")
	}
	starlark := "unknown"
	build := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "go.starlark.net" {
				starlark = m.Version
				if m.Replace != nil {
					starlark = m.Replace.Version
				}
			}
		}
		if v := info.Main.Version; v != "" && v != "(devel)" {
			build = " (" + v + ")"
		}
	}
	fmt.Fprintf(e.stdout, "crystal-star %s%s\n%s\ngo.starlark.net %s\n", starhost.Version, build, runtime.Version(), starlark)
	return nil
}

// unknownFlag is the usage error for a flag nobody declares.
func unknownFlag(flag string, known []string) error {
	name := strings.TrimLeft(flag, "-")
	return usagef("unknown flag %s%s", flag, didYouMean(name, known, "--"))
}

// didYouMean returns "; did you mean PREFIX+X?" for the candidate nearest to
// word, or "" when none is near enough to be a likely typo.
func didYouMean(word string, candidates []string, prefix string) string {
	if s := nearest(word, candidates); s != "" {
		return "; did you mean " + prefix + s + "?"
	}
	return ""
}

// nearest returns the candidate closest to word (contrib.Nearest, the
// project's one "did you mean"), or else the only candidate word is a
// prefix of; "" when word is itself a candidate.
func nearest(word string, candidates []string) string {
	if slices.Contains(candidates, word) {
		return ""
	}
	if s := contrib.Nearest(word, candidates); s != "" {
		return s
	}
	var prefixed []string
	for _, c := range candidates {
		if word != "" && strings.HasPrefix(c, word) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}
