package main

import (
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
	ansiError   sgr = "\x1b[1;31m"
	ansiWarning sgr = "\x1b[1;35m"
	ansiNote    sgr = "\x1b[1;36m"
	ansiReset   sgr = "\x1b[0m"
)

func severityColour(s string) sgr {
	switch s {
	case "error":
		return ansiError
	case "warning":
		return ansiWarning
	}
	return ansiNote
}

// diagLine is the one place a diagnostic or note becomes a line of output:
// `path:line:col: severity: plugin: message [Code]` (unknown parts left
// out, "; remedy" when there is a next step), with the severity coloured
// where the stream is.
func diagLine(d starhost.Note) line {
	if d.Plugin != "" && d.Remedy != "" {
		d.Remedy = remedy(d.Plugin, noteAction(d.Code), d.Remedy) // the CLI's command for it
	}
	text := d.String()
	pos := ""
	if p := d.Pos.String(); p != "" {
		pos = p + ": "
	}
	sev := string(d.Severity)
	if !strings.HasPrefix(text, pos+sev+":") {
		return line{text: text}
	}
	return line{text: text, from: len(pos), to: len(pos) + len(sev), colour: severityColour(sev)}
}

// errorLine is a CLI error message as printed on stderr, coloured red
// where stderr is coloured.
func errorLine(msg string) line {
	const prefix = "crystal-star: "
	return line{text: prefix + msg, from: len(prefix), to: len(prefix) + len(msg), colour: ansiError}
}

// printDiag prints one diagnostic on w (the env's stdout or stderr).
func (e *env) printDiag(w *output, indent string, d starhost.Note) {
	l := diagLine(d)
	l.text, l.from, l.to = indent+l.text, l.from+len(indent), l.to+len(indent)
	w.println(l)
}
