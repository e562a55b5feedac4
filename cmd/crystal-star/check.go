package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
	"github.com/crystal-star/crystal-star/starhost/format" // fmt, and the Style* warnings of check
)

var checkCmd = command{name: "check", args: "[PATH...]",
	summary: "lint manifests and Starlark without running the host; exit 1 on errors",
	flags: []flagSpec{{name: "json", help: "print the diagnostics as JSON (docs/check.md)"},
		{name: "watch", help: "re-check on every save and print only what changed (docs/check.md)"},
		{name: "strict", help: "exit 1 on warnings too, for CI (docs/check.md)"}},
	example: "check plugins/review", run: runCheck}

var fmtCmd = command{name: "fmt", args: "[-w] [-d] [PATH...|-]",
	summary: "format .star files: print them, -w rewrite them, -d show a diff (exit 1 if any differ)",
	example: "fmt -d plugins", run: runFmt}

// checkJSON is the stable shape of one `check --json` entry (docs/check.md).
type checkJSON struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Plugin   string `json:"plugin"`
}

func runCheck(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	for _, p := range f.args {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			return usagef("check: %s is not a plugin directory or a directory of plugins", p)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// The same names as a started CLI host (env.start), so check finds
	// exactly what the CLI host would leave out.
	opts := check.Options{Paths: f.args, Options: e.checkHostOptions()}
	if f.has("watch") {
		return e.checkWatch(ctx, opts, f.has("json"))
	}
	r, err := check.Plugins(ctx, opts)
	if err != nil {
		return err
	}
	if len(r.Plugins) == 0 {
		return nothingFound("check", "check")
	}
	if f.has("json") {
		out := make([]checkJSON, len(r.Diagnostics))
		for i, d := range r.Diagnostics {
			out[i] = checkJSON{File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col, Severity: string(d.Severity),
				Code: string(d.Code), Message: d.Message, Plugin: d.Plugin}
		}
		if err := e.printJSON(out); err != nil {
			return err
		}
	} else {
		for _, d := range r.Diagnostics {
			e.printDiag(e.stdout, "", d)
		}
		fmt.Fprintln(e.stdout, r.Summary())
	}
	if r.Count(starhost.SeverityError) > 0 || f.has("strict") && r.Count(starhost.SeverityWarning) > 0 {
		return &exitError{code: 1}
	}
	return nil
}

func runFmt(e *env, args []string) error {
	var write, showDiff, stdin bool
	var paths []string
loop:
	for i, a := range args {
		switch {
		case a == "-w" || a == "--w":
			write = true
		case a == "-d" || a == "--d":
			showDiff = true
		case a == "-":
			stdin = true
		case a == "--":
			paths = append(paths, args[i+1:]...)
			break loop
		case strings.HasPrefix(a, "-"):
			return usagef("fmt: unknown flag %s (want -w or -d)", a)
		default:
			paths = append(paths, a)
		}
	}
	if stdin {
		if write || len(paths) > 0 {
			return usagef("fmt: - (standard input) cannot be combined with -w or paths")
		}
		return e.fmtStdin(showDiff)
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return usagef("fmt: %s does not exist", p)
		}
	}
	results, err := format.Files(format.Options{Paths: paths, Write: write})
	if err != nil {
		return err
	}
	failed, unformatted := false, false
	for _, r := range results {
		switch {
		case r.Err != nil:
			fmt.Fprintf(e.stderr, "crystal-star: fmt: %v\n", r.Err)
			failed = true
			continue
		case r.Changed():
			unformatted = true
		}
		if showDiff && r.Changed() {
			e.stdout.Write(diff.Diff(r.File+".orig", r.Source, r.File, r.Formatted))
		}
		if !write && !showDiff {
			e.stdout.Write(r.Formatted)
		}
	}
	if failed || (showDiff && unformatted) {
		return &exitError{code: 1}
	}
	return nil
}

// fmtStdin formats standard input to standard output (for editors).
func (e *env) fmtStdin(showDiff bool) error {
	src, err := io.ReadAll(e.stdin)
	if err != nil {
		return err
	}
	out, err := format.Source("<stdin>", src)
	if err != nil {
		return fmt.Errorf("fmt: %w", err) // as for files: crystal-star: fmt: <stdin>:L:C: …
	}
	if !showDiff {
		_, err = e.stdout.Write(out)
		return err
	}
	if d := diff.Diff("<stdin>.orig", src, "<stdin>", out); d != nil {
		e.stdout.Write(d)
		return &exitError{code: 1}
	}
	return nil
}
