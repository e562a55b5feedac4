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
	_ "github.com/crystal-star/crystal-star/starhost/models/builtin" // the CLI serves every built-in protocol of providers.json
)

func main() {
	starhost.ServeWorkerIfChild() // a plugin worker of a host in process isolation never returns
	os.Exit(Main())
}

// Main runs the command line with the process's arguments and streams and
// returns the exit code: 0 success, 1 failure, 2 usage error.
func Main() int { return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }

// usageError is a mistake in the command line: exit 2 with a one-line hint.
type usageError struct {
	msg  string
	hint string // replaces the default hint when set
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// exitError carries a non-zero exit code whose message was already printed.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// commands is the CLI's command table, in the order help lists it. Each
// entry's usage, flags and example live beside its runner; adding a
// command is one line here and one command value in its own file.
var commands = []*command{
	&devCmd, &checkCmd, &fmtCmd,
	&pluginsCmd, &toolsCmd, &callCmd, &expandCmd, &renderCmd, &statusCmd,
	&trustCmd, &installCmd, &enableCmd, &disableCmd, &removeCmd,
	&testCmd, &newCmd, &commandsCmd,
	&packCmd, &executorCmd,
	&hookCmd, &statuslineCmd, &setupCmd,
	&mcpCmd, &lspCmd, &versionCmd, &helpCmd,
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g, rest, err := parseGlobal(args)
	e := &env{global: g, stdin: stdin, stdout: newOutput(stdout), stderr: newOutput(stderr)}
	if err == nil {
		e.style, err = newStyle(g.color, stdout, stderr)
		e.stdout.colour, e.stderr.colour = e.style.out, e.style.err
	}
	if err == nil {
		err = dispatch(e, rest)
	}
	switch err := err.(type) {
	case nil:
		return 0
	case *usageError:
		hint := err.hint
		if hint == "" {
			hint = "run 'crystal-star help' for usage"
			if e.cmd != nil && e.cmd != &helpCmd {
				hint = fmt.Sprintf("run 'crystal-star %s --help' for usage", e.cmd.name)
			}
		}
		e.stderr.println(errorLine(err.msg))
		fmt.Fprintln(e.stderr, hint)
		return 2
	case *exitError:
		return err.code
	default:
		e.stderr.println(errorLine(err.Error()))
		return 1
	}
}

// dispatch finds the command named by rest[0] and runs it; no command, -h
// and --help print the command list, --version the version.
func dispatch(e *env, rest []string) error {
	if len(rest) == 0 {
		return printCommands(e)
	}
	switch rest[0] {
	case "-h", "--help", "-help":
		return runHelp(e, rest[1:])
	case "--version", "-version":
		return runVersion(e, rest[1:])
	}
	name := rest[0]
	if strings.HasPrefix(name, "-") {
		return unknownFlag(name, globalFlagNames())
	}
	cmd := findCommand(name)
	if cmd == nil {
		return &usageError{msg: fmt.Sprintf("unknown command %q", name) + didYouMean(name, commandNames(), "")}
	}
	e.cmd = cmd
	if wantsHelp(rest[1:]) {
		printUsage(e, cmd)
		return nil
	}
	if cmd == &helpCmd { // the help runner reads the table: no cycle through helpCmd.run
		return runHelp(e, rest[1:])
	}
	if err := e.checkDevPaths(); err != nil {
		return err
	}
	defer e.close()
	defer e.flushNotes() // before close: the shutdown's notes follow
	return cmd.run(e, rest[1:])
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// wantsHelp reports whether a command's arguments ask for its usage: -h or
// --help before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "--help", "-help":
			return true
		}
	}
	return false
}

// checkDevPaths refuses a --dev path that does not exist: it would
// otherwise load nothing, silently, in every command.
func (e *env) checkDevPaths() error {
	for _, d := range e.global.dev {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return &usageError{msg: fmt.Sprintf("--dev %s: no such directory", d),
				hint: "--dev takes a plugin directory or a directory of plugins"}
		}
	}
	return nil
}

// nothingFound is the usage error of a command that found no plugin to
// work on: passing would hide a wrong path or directory (a trap in CI).
func nothingFound(cmd, what string) error {
	return &usageError{msg: fmt.Sprintf("%s: no plugins to %s", cmd, what),
		hint: fmt.Sprintf("give a plugin directory (crystal-star %s plugins/NAME) or run it in a workspace with .crystal/plugins/", cmd)}
}

// global holds the flags accepted before or after the command name.
type global struct {
	home, workspace string
	dev             []string
	color           string
}

// globalFlags are the flags every command accepts, with their values.
var globalFlags = []flagSpec{
	{"home", "DIR", "the crystal home (default $CRYSTAL_HOME, else ~/.crystal)"},
	{"workspace", "DIR", "the workspace directory (default: the current directory)"},
	{"dev", "DIR", "a development plugin, or a directory of them; repeatable"},
	{"color", "auto|always|never", "colour diagnostics (default auto: only on a terminal, never with NO_COLOR)"},
}

func globalFlagNames() []string {
	names := []string{"help", "version"}
	for _, f := range globalFlags {
		names = append(names, f.name)
	}
	return names
}

// parseGlobal pulls the global flags (with "=value" or a separate value)
// out of args, wherever they stand, and returns the rest.
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
		if !strings.HasPrefix(a, "-") || findFlag(globalFlags, name) == nil {
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
		case "color":
			g.color = value
		}
	}
	return g, rest, nil
}
