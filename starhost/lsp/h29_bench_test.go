package lsp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// BenchmarkH29_3_Requests times each request on the author's code —
// hover, completion after ctx., signature help, references, rename, code
// actions — on plugin.star of each example plugin (plugins/*), through a
// session over a pipe as an editor sends them: ns/op is one request's
// round trip, the answer read as raw JSON. Issue 29 point 3 wants it under 10 ms.
func BenchmarkH29_3_Requests(b *testing.B) {
	for _, d := range exampleDocs(b) {
		name, uri, def, ctxDot, call := d.name, d.uri, d.def, d.ctxDot, d.call
		c := benchSession(b)
		c.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: uri, LanguageID: "starlark", Version: 1, Text: d.text}})
		var raw json.RawMessage // the answer as it arrives: an editor's own decoding is not the server's latency
		requests := map[string]func(){
			"hover": func() {
				c.call("textDocument/hover", protocol.HoverParams{TextDocumentPositionParams: at(uri, def[0], def[1]+4)}, &raw)
			},
			"completion-ctx": func() {
				c.call("textDocument/completion", protocol.CompletionParams{TextDocumentPositionParams: at(uri, ctxDot[0], ctxDot[1])}, &raw)
			},
			"signature": func() {
				c.call("textDocument/signatureHelp", protocol.SignatureHelpParams{TextDocumentPositionParams: at(uri, call[0], call[1])}, &raw)
			},
			"references": func() {
				c.call("textDocument/references", protocol.ReferenceParams{TextDocumentPositionParams: at(uri, def[0], def[1]+4),
					Context: protocol.ReferenceContext{IncludeDeclaration: true}}, &raw)
			},
			"rename": func() {
				c.call("textDocument/rename", protocol.RenameParams{TextDocumentPositionParams: at(uri, def[0], def[1]+4), NewName: "renamed_fn"}, &raw)
			},
			"codeAction": func() {
				c.call("textDocument/codeAction", map[string]any{"textDocument": protocol.TextDocumentIdentifier{URI: uri},
					"range": protocol.Range{}, "context": map[string]any{"diagnostics": []map[string]any{{
						"range": protocol.Range{Start: protocol.Position{Line: uint32(ctxDot[0]), Character: uint32(ctxDot[1])},
							End: protocol.Position{Line: uint32(ctxDot[0]), Character: uint32(ctxDot[1] + 3)}},
						"source": "crystal-star", "code": "CtxFieldUnknown", "message": `ctx has no field x (did you mean "store"?)`}}}}, &raw)
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

// benchDoc is one example plugin's plugin.star and the places the
// benchmarks ask about: the first def's name, the first ctx. and the
// first contribute( call.
type benchDoc struct {
	path, name, text, uri string
	def, ctxDot, call     [2]int
}

// exampleDocs reads plugin.star of each example plugin (plugins/*); none
// is a failure, not an empty benchmark.
func exampleDocs(b *testing.B) []benchDoc {
	roots, _ := filepath.Glob(filepath.Join("..", "..", "plugins", "*", "plugin.star"))
	if len(roots) == 0 {
		b.Fatal("no example plugins")
	}
	var docs []benchDoc
	for _, path := range roots {
		path, _ = filepath.Abs(path)
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		text := string(data)
		docs = append(docs, benchDoc{path: path, name: filepath.Base(filepath.Dir(path)), text: text, uri: uriOf(path),
			def: find(text, "def ", 1), ctxDot: find(text, "ctx.", len("ctx.")), call: find(text, "contribute(", len("contribute("))})
	}
	return docs
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
func benchSession(b *testing.B) *client { return startSession(b, time.Hour) }

// BenchmarkH29_3_Handlers times the server's own work for the same
// requests, without the pipe, the framing and the scheduling of a busy
// machine: the handler called in the process, ns/op its CPU time, near
// enough.
func BenchmarkH29_3_Handlers(b *testing.B) {
	for _, d := range exampleDocs(b) {
		name, uri, def, ctxDot, call := d.name, d.uri, d.def, d.ctxDot, d.call
		s := &server{ctx: context.Background(), docs: map[string]string{d.path: d.text}, timers: map[string]*time.Timer{}, published: map[string][]string{}}
		requests := map[string]func() error{
			"hover": func() error {
				_, err := s.hover(nil, &protocol.HoverParams{TextDocumentPositionParams: at(uri, def[0], def[1]+4)})
				return err
			},
			"completion-ctx": func() error {
				_, err := s.completion(nil, &protocol.CompletionParams{TextDocumentPositionParams: at(uri, ctxDot[0], ctxDot[1])})
				return err
			},
			"signature": func() error {
				_, err := s.signatureHelp(nil, &protocol.SignatureHelpParams{TextDocumentPositionParams: at(uri, call[0], call[1])})
				return err
			},
			"references": func() error {
				_, err := s.references(nil, &protocol.ReferenceParams{TextDocumentPositionParams: at(uri, def[0], def[1]+4),
					Context: protocol.ReferenceContext{IncludeDeclaration: true}})
				return err
			},
			"rename": func() error {
				_, err := s.rename(nil, &protocol.RenameParams{TextDocumentPositionParams: at(uri, def[0], def[1]+4), NewName: "renamed_fn"})
				return err
			},
		}
		for _, kind := range []string{"hover", "completion-ctx", "signature", "references", "rename"} {
			b.Run(name+"/"+kind, func(b *testing.B) {
				for b.Loop() {
					if err := requests[kind](); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
