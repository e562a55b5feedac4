package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/chzyer/readline"

	"github.com/crystal-star/crystal-star/starhost"
)

// style decides whether each output stream is coloured: --color=always
// colours both, never neither; auto (the default) colours a stream only when
// it is a terminal and NO_COLOR is unset or empty (https://no-color.org).
type style struct{ out, err bool }

func newStyle(mode string, stdout, stderr io.Writer) (style, error) {
	switch mode {
	case "always":
		return style{true, true}, nil
	case "never":
		return style{}, nil
	case "", "auto":
		if os.Getenv("NO_COLOR") != "" {
			return style{}, nil
		}
		return style{out: isTerminal(stdout), err: isTerminal(stderr)}, nil
	}
	return style{}, usagef("--color must be auto, always or never")
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && readline.IsTerminal(int(f.Fd()))
}

// ANSI escapes for the three severities, as compilers colour them.
const (
	ansiError   = "\x1b[1;31m"
	ansiWarning = "\x1b[1;35m"
	ansiNote    = "\x1b[1;36m"
	ansiReset   = "\x1b[0m"
)

func severityColour(s string) string {
	switch s {
	case "error":
		return ansiError
	case "warning":
		return ansiWarning
	}
	return ansiNote
}

// formatDiag is the one place a diagnostic or note becomes a line of
// output: `path:line:col: severity: plugin: message [Code]` (unknown parts
// left out, "; remedy" when there is a next step), with the severity
// coloured when colour is on.
func formatDiag(d starhost.Note, colour bool) string {
	if d.Plugin != "" && d.Remedy != "" {
		d.Remedy = remedy(d.Plugin, noteAction(d.Code), d.Remedy) // the CLI's command for it
	}
	line := safe(d.String())
	if !colour {
		return line
	}
	pos := ""
	if p := d.Pos.String(); p != "" {
		pos = p + ": "
	}
	sev := string(d.Severity)
	if !strings.HasPrefix(line[len(pos):], sev+":") {
		return line
	}
	return pos + severityColour(sev) + sev + ansiReset + line[len(pos)+len(sev):]
}

// errorText colours a CLI error message on stderr.
func (s style) errorText(msg string) string {
	if !s.err {
		return msg
	}
	return ansiError + msg + ansiReset
}

// printDiag prints one diagnostic on w (the env's stdout or stderr),
// coloured as that stream is.
func (e *env) printDiag(w io.Writer, indent string, d starhost.Note) {
	colour := e.style.err
	if w == e.stdout {
		colour = e.style.out
	}
	fmt.Fprintln(w, indent+formatDiag(d, colour))
}
