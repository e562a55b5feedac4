package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chzyer/readline"

	"github.com/crystal-star/crystal-star/starhost"
)

// The dev console reads its lines in one of two ways. When stdin and stdout
// are a terminal it edits them with github.com/chzyer/readline (docs/cli.md,
// "Line editing"): cursor keys, Emacs keys, history kept in
// {home}/dev_history, Ctrl-R search and Tab completion. Anything else — a
// pipe, a file, a test — is read as plain lines, so scripts drive the
// console exactly as before.

// historyFileName is the console history's file in the home directory.
const historyFileName = "dev_history"

// input starts reading console lines and returns them on a channel that is
// closed at the end of input (Ctrl-D, or Ctrl-C twice on an empty line, on
// a terminal), with the function that stops reading.
func (c *console) input() (<-chan string, func()) {
	// Both ends must be a terminal: a prompt redrawn into a pipe (dev | tee)
	// would only be noise.
	if f, ok := c.e.stdin.(*os.File); ok && isTerminal(f) && c.e.stdout.terminal() {
		if lines, stop, err := c.terminalInput(f); err == nil {
			return lines, stop
		}
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(c.e.stdin)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines, func() {}
}

// terminalInput reads edited lines from the terminal in. While a line is
// being edited, everything the console prints goes through readline, which
// clears the prompt, prints and redraws it, so reload messages never mangle
// what the operator is typing.
func (c *console) terminalInput(in *os.File) (<-chan string, func(), error) {
	fd := int(in.Fd())
	outFd := fd
	if f, ok := c.e.stdout.unsanitised().(*os.File); ok {
		outFd = int(f.Fd())
	}
	home := c.e.home()
	history := ""
	if err := os.MkdirAll(home, 0o700); err == nil {
		history = filepath.Join(home, historyFileName)
	}
	var raw *readline.State
	stdin := readline.NewCancelableStdin(in)
	rl, err := readline.NewEx(&readline.Config{
		Prompt:            "> ",
		HistoryFile:       history,
		HistorySearchFold: true,
		AutoComplete:      completer{c},
		Stdin:             stdin,
		// readline draws the prompt with escape sequences of its own.
		Stdout: c.e.stdout.unsanitised(),
		Stderr: c.e.stderr.unsanitised(),
		// readline's defaults look at the process's own stdin and stdout;
		// the console's streams are the ones to use.
		FuncIsTerminal: func() bool { return true },
		FuncMakeRaw: func() (err error) {
			raw, err = readline.MakeRaw(fd)
			return err
		},
		FuncExitRaw: func() error {
			if raw == nil {
				return nil
			}
			return readline.Restore(fd, raw)
		},
		FuncGetWidth: func() int {
			if w, _, err := readline.GetSize(outFd); err == nil {
				return w
			}
			return 80
		},
	})
	if err != nil {
		return nil, nil, err
	}
	c.e.stdout.through(func(w io.Writer) io.Writer { return promptWriter{rl, w} })
	c.e.stderr.through(func(w io.Writer) io.Writer { return promptWriter{rl, w} })
	lines := make(chan string)
	go func() {
		defer close(lines)
		var ctrlC interrupts
		for {
			line, err := rl.Readline()
			switch {
			case errors.Is(err, readline.ErrInterrupt):
				quit, hint := ctrlC.interrupt(line)
				if quit {
					return
				}
				if hint != "" {
					c.printf("%s", hint)
				}
				continue
			case err != nil: // io.EOF: Ctrl-D
				return
			}
			ctrlC.reset()
			lines <- line
		}
	}()
	// readline v1.5.1's Close does not close the cancelable stdin it wraps
	// and would wait for its read forever: close it first.
	return lines, func() { stdin.Close(); rl.Close() }, nil
}

// interrupts decides what Ctrl-C at the prompt does, as shells and REPLs
// do: on a half-typed line it clears the line (readline has dropped it);
// on an empty line it says how to quit, and a second Ctrl-C in a row on
// an empty line quits. Anything entered in between starts over.
type interrupts struct{ armed bool }

// quitHint is what the first Ctrl-C on an empty line prints.
const quitHint = "(Ctrl-C again to quit, or Ctrl-D, or /quit)"

// interrupt takes one Ctrl-C on line (the text being edited) and reports
// whether to quit, and a hint to print.
func (i *interrupts) interrupt(line string) (quit bool, hint string) {
	if line != "" {
		i.armed = false
		return false, ""
	}
	if i.armed {
		return true, ""
	}
	i.armed = true
	return false, quitHint
}

// reset forgets a pending Ctrl-C: a line was entered.
func (i *interrupts) reset() { i.armed = false }

// promptWriter prints above the line being edited: it clears the prompt,
// writes, and redraws the prompt with what was typed. (readline's own
// Instance.Stdout does the same but reads the completer's state without a
// lock, a data race with Tab; Clean and Refresh take the line's lock.)
type promptWriter struct {
	rl *readline.Instance
	w  io.Writer
}

func (p promptWriter) Write(b []byte) (int, error) {
	p.rl.Clean()
	defer p.rl.Refresh()
	return p.w.Write(b)
}

// completer completes console lines on Tab: the console's verbs and plugin
// commands after "/", tool names after /call, /dispatch and /classify,
// plugin ids after /reload, status fields after /statusline add|remove.
type completer struct{ c *console }

// Do implements readline.AutoCompleter: it returns the suffixes that
// complete the word before the cursor and that word's length.
func (k completer) Do(line []rune, pos int) ([][]rune, int) {
	text := string(line[:pos])
	words := strings.Fields(text)
	if strings.HasSuffix(text, " ") || len(words) == 0 {
		words = append(words, "")
	}
	word := words[len(words)-1]
	var candidates []string
	switch {
	case len(words) == 1 && strings.HasPrefix(word, "/"):
		candidates = prefixed("/", k.c.verbs())
	case len(words) == 2:
		candidates = k.c.argumentNames(words[0])
	case len(words) == 3 && words[0] == "/statusline" && (words[1] == "add" || words[1] == "remove"):
		candidates = k.c.fieldNames()
	}
	var out [][]rune
	for _, cand := range candidates {
		if strings.HasPrefix(cand, word) && cand != word {
			out = append(out, []rune(cand[len(word):]+" "))
		}
	}
	return out, len([]rune(word))
}

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// verbs are every name the console accepts after "/": its own verbs, then
// plugin and markdown commands with their aliases, sorted, without repeats.
func (c *console) verbs() []string {
	names := consoleVerbs()
	for _, cmd := range c.h.Commands() {
		names = append(names, cmd.Name)
		names = append(names, cmd.Aliases...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// argumentNames are the names the first argument of verb can take.
func (c *console) argumentNames(verb string) []string {
	switch verb {
	case "/call", "/dispatch", "/classify":
		return c.toolNames()
	case "/reload":
		return c.pluginIDs()
	case "/statusline":
		return []string{"add", "remove", "on", "off", "reset"}
	case "/hook":
		return starhost.HookEvents()
	}
	return nil
}

func (c *console) toolNames() []string {
	var names []string
	for _, t := range c.t().Tools(context.Background(), starhost.PlanAndWork).List() {
		names = append(names, t.Name)
	}
	return names
}

func (c *console) pluginIDs() []string {
	var ids []string
	for _, p := range c.h.Plugins() {
		ids = append(ids, p.ID)
	}
	return ids
}

func (c *console) fieldNames() []string {
	var names []string
	for _, f := range c.h.StatusFields() {
		names = append(names, f.Name)
	}
	return names
}

var _ readline.AutoCompleter = completer{}
