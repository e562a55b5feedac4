package main

import (
	"context"
	"io"
	"os"
	"os/signal"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/lsp"
)

var lspCmd = command{name: "lsp",
	summary: "the language server for editors, over stdin and stdout (docs/editors.md)",
	example: "lsp", run: runLSP}

// runLSP serves the Language Server Protocol on stdin and stdout until the
// editor sends exit or closes the stream. Diagnostics are those of check,
// with the same names as a started CLI host.
func runLSP(e *env, args []string) error {
	if len(args) > 0 {
		return usagef("lsp takes no arguments; the editor talks to it on stdin and stdout")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return lsp.Serve(ctx, stdio{e.stdin, e.stdout.unsanitised()}, lsp.Options{Check: e.checkHostOptions()})
}

// checkHostOptions are the options check and the language server check
// with: the same names as a started CLI host (env.start), so they find
// exactly what the CLI host would leave out.
func (e *env) checkHostOptions() starhost.Options {
	return starhost.Options{
		Home: e.global.home, Workspace: e.global.workspace, Dev: e.global.dev,
		BuiltinTools: cliBuiltinTools, BuiltinCommands: cliBuiltinCommands,
		HostPlaceholders: cliHostPlaceholders, BuiltinStatusFields: cliStatusFields,
	}
}

// stdio joins the command's standard input and output into one stream.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
