package lsp

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/crystal-star/crystal-star/starhost"
)

// BenchmarkH29_3_Requests times each request on the author's code —
// hover, completion after ctx., signature help, references, rename, code
// actions — on plugin.star of each example plugin (plugins/*), through a
// session over a pipe as an editor sends them: ns/op is one request's
// latency. Issue 29 point 3 wants it under 10 ms.
func BenchmarkH29_3_Requests(b *testing.B) {
	roots, _ := filepath.Glob(filepath.Join("..", "..", "plugins", "*", "plugin.star"))
	if len(roots) == 0 {
		b.Fatal("no example plugins")
	}
	for _, path := range roots {
		path, _ = filepath.Abs(path)
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		text := string(data)
		name := filepath.Base(filepath.Dir(path))
		c := benchSession(b)
		uri := uriOf(path)
		c.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: uri, LanguageID: "starlark", Version: 1, Text: text}})
		def := find(text, "def ", 1)
		ctxDot := find(text, "ctx.", len("ctx."))
		call := find(text, "contribute(", len("contribute("))
		requests := map[string]func(){
			"hover": func() {
				var h *protocol.Hover
				c.call("textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: at(uri, def[0], def[1]+4)}, &h)
			},
			"completion-ctx": func() {
				var items []protocol.CompletionItem
				c.call("textDocument/completion", protocol.CompletionParams{TextDocumentPositionParams: at(uri, ctxDot[0], ctxDot[1])}, &items)
			},
			"signature": func() {
				var h *protocol.SignatureHelp
				c.call("textDocument/signatureHelp", protocol.SignatureHelpParams{TextDocumentPositionParams: at(uri, call[0], call[1])}, &h)
			},
			"references": func() {
				var locs []protocol.Location
				c.call("textDocument/references", protocol.ReferenceParams{TextDocumentPositionParams: at(uri, def[0], def[1]+4),
					Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &locs)
			},
			"rename": func() {
				var e *protocol.WorkspaceEdit
				c.call("textDocument/rename", protocol.RenameParams{TextDocumentPositionParams: at(uri, def[0], def[1]+4), NewName: "renamed_fn"}, &e)
			},
			"codeAction": func() {
				var actions []protocol.CodeAction
				c.call("textDocument/codeAction", map[string]any{"textDocument": protocol.TextDocumentIdentifier{URI: uri},
					"range": protocol.Range{}, "context": map[string]any{"diagnostics": []map[string]any{{
						"range": protocol.Range{Start: protocol.Position{Line: uint32(ctxDot[0]), Character: uint32(ctxDot[1])},
							End: protocol.Position{Line: uint32(ctxDot[0]), Character: uint32(ctxDot[1] + 3)}},
						"source": "crystal-star", "code": "CtxFieldUnknown", "message": `ctx has no field x (did you mean "store"?)`}}}}, &actions)
			},
		}
		for _, kind := range []string{"hover", "completion-ctx", "signature", "references", "rename", "codeAction"} {
			b.Run(name+"/"+kind, func(b *testing.B) {
				for b.Loop() {
					requests[kind]()
				}
			})
		}
	}
}

// find returns the 0-based line and character just past offset bytes into
// the first occurrence of word.
func find(text, word string, offset int) [2]int {
	i := strings.Index(text, word)
	if i < 0 {
		return [2]int{0, 0}
	}
	line := strings.Count(text[:i], "\n")
	return [2]int{line, i - (strings.LastIndex(text[:i], "\n") + 1) + offset}
}

// benchSession starts a session for a benchmark; checks never run (the
// debounce outlasts it).
func benchSession(b *testing.B) *client {
	serverEnd, clientEnd := net.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), serverEnd, Options{Debounce: time.Hour,
			Check: starhost.Options{Home: b.TempDir(), Workspace: b.TempDir()}})
	}()
	t := &testing.T{}
	c := &client{t: t, diags: make(chan published, 64)}
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(clientEnd, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) { return nil, nil }))
	b.Cleanup(func() {
		c.conn.Close()
		<-done
	})
	var init protocol.InitializeResult
	c.call("initialize", protocol.InitializeParams{}, &init)
	return c
}
