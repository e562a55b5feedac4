// Command crystal-star is the plugin host's command line: plugin authors run
// the dev console and check their plugins with it; operators list, trust and
// call plugins. It is a thin layer of flags and printing over starhost.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/crystal-star/crystal-star/starhost"
)

func main() {
	starhost.ServeWorkerIfChild() // a plugin worker of a host in process isolation never returns
	os.Exit(Main())
}

// Main runs the command line with the process's arguments and streams and
// returns the exit code: 0 success, 1 failure, 2 usage error.
func Main() int { return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }

// usageError is a mistake in the command line: exit 2 with a one-line hint.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// exitError carries a non-zero exit code whose message was already printed.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(e *env, args []string) error
}

// commands lists every subcommand; files of this package append theirs in
// init.
var commands []command

func init() {
	commands = append(commands, []command{
		{"plugins", "every discovered plugin: state, generation, trust, blockers, diagnostics", runPlugins},
		{"tools", "the tool catalog, in order", runTools},
		{"call", "invoke one tool: call TOOL [JSON]", runCall},
		{"expand", "the turn input a command produces: expand /NAME [ARGS...]", runExpand},
		{"render", "bind a template: render TEMPLATE [--site SITE]", runRender},
		{"trust", "trust grant ID | trust revoke ID [--fingerprint FP] | trust list", runTrust},
		{"install", "copy a plugin bundle into the home (or --project) plugins; grants nothing", runInstall},
		{"enable", "enable a plugin (config.toml; --project for the workspace layer)", runEnable},
		{"disable", "disable a plugin (config.toml; --project for the workspace layer)", runDisable},
		{"remove", "delete an installed plugin's directory", runRemove},
		{"help", "this list", runHelp},
	}...)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g, rest, err := parseGlobal(args)
	if err == nil && len(rest) == 0 {
		err = usagef("no command given")
	}
	var cmd *command
	if err == nil {
		for i := range commands {
			if commands[i].name == rest[0] {
				cmd = &commands[i]
			}
		}
		if cmd == nil {
			err = usagef("unknown command %q", rest[0])
		}
	}
	if err == nil {
		e := &env{global: g, stdin: stdin, stdout: stdout, stderr: stderr}
		err = cmd.run(e, rest[1:])
		e.close()
	}
	switch err := err.(type) {
	case nil:
		return 0
	case *usageError:
		fmt.Fprintf(stderr, "crystal-star: %s\nrun 'crystal-star help' for usage\n", err.msg)
		return 2
	case *exitError:
		return err.code
	default:
		fmt.Fprintf(stderr, "crystal-star: %v\n", err)
		return 1
	}
}

func runHelp(e *env, _ []string) error {
	fmt.Fprintln(e.stdout, "usage: crystal-star [--home DIR] [--workspace DIR] [--dev DIR]... COMMAND [ARGS]")
	fmt.Fprintln(e.stdout, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(e.stdout, "  %-8s %s\n", c.name, c.summary)
	}
	return nil
}

// global holds the flags accepted before or after the command name.
type global struct {
	home, workspace string
	dev             []string
}

// parseGlobal pulls --home, --workspace and --dev (with "=value" or a
// separate value) out of args, wherever they stand, and returns the rest.
func parseGlobal(args []string) (global, []string, error) {
	var g global
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		name = strings.TrimPrefix(name, "-")
		if !strings.HasPrefix(a, "-") || (name != "home" && name != "workspace" && name != "dev") {
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return g, nil, usagef("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		switch name {
		case "home":
			g.home = value
		case "workspace":
			g.workspace = value
		case "dev":
			g.dev = append(g.dev, value)
		}
	}
	return g, rest, nil
}
