package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// TestReview_IndexCachedPerVersion: the index of the author's code (the
// bundle's files parsed and resolved, check's callbacks) is built once per
// version of the bundle: hover, references, completion and signature help
// on an unchanged document parse nothing again; a change in the editor
// (didChange, didSave) or on disk (a watched file) is seen by the next
// request.
func TestReview_IndexCachedPerVersion(t *testing.T) {
	dir := testkit.Plugin{ID: "acme.h29", Source: h29Plugin,
		Files: map[string]string{"lib/helpers.star": h29Helpers}}.Write(t, filepath.Join(t.TempDir(), "plug"))
	path := filepath.Join(dir, "plugin.star")
	uri := uriOf(path)
	s := &server{ctx: context.Background(), opts: Options{Debounce: time.Hour},
		docs: map[string]string{}, timers: map[string]*time.Timer{}, published: map[string][]string{}}
	t.Cleanup(s.stopTimers)
	hover := func(text, word string, n int) string {
		t.Helper()
		line, char := posOf(t, text, word, n, 1)
		h, err := s.hover(nil, &protocol.HoverParams{TextDocumentPositionParams: at(uri, line, char)})
		if err != nil || h == nil {
			t.Fatalf("hover on %s: %v, %v", word, h, err)
		}
		return h.Contents.(protocol.MarkupContent).Value
	}
	if err := s.didOpen(nil, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: uri, Text: h29Plugin}}); err != nil {
		t.Fatal(err)
	}
	if h := hover(h29Plugin, "where", 3); !strings.Contains(h, "Says where the workspace is.") {
		t.Fatalf("hover = %s", h)
	}
	parsed := s.indexes.parsed.Load()
	if parsed != 2 {
		t.Fatalf("the first request parsed %d files, want the bundle's 2", parsed)
	}
	hover(h29Plugin, "describe", 1)
	line, char := posOf(t, h29Plugin, "where", 3, 1)
	if _, err := s.references(nil, &protocol.ReferenceParams{TextDocumentPositionParams: at(uri, line, char),
		Context: protocol.ReferenceContext{IncludeDeclaration: true}}); err != nil {
		t.Fatal(err)
	}
	line, char = posOf(t, h29Plugin, "return describe", 0, len("return desc"))
	if _, err := s.completion(nil, &protocol.CompletionParams{TextDocumentPositionParams: at(uri, line, char)}); err != nil {
		t.Fatal(err)
	}
	line, char = posOf(t, h29Plugin, "tool(", 0, len("tool("))
	if _, err := s.signatureHelp(nil, &protocol.SignatureHelpParams{TextDocumentPositionParams: at(uri, line, char)}); err != nil {
		t.Fatal(err)
	}
	if got := s.indexes.parsed.Load(); got != parsed {
		t.Fatalf("requests on an unchanged document parsed %d files again", got-parsed)
	}

	edited := strings.Replace(h29Plugin, "Says where the workspace is.", "Says where, now.", 1)
	if err := s.didChange(nil, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: 2},
		ContentChanges: []any{protocol.TextDocumentContentChangeEventWhole{Text: edited}}}); err != nil {
		t.Fatal(err)
	}
	if h := hover(edited, "where", 3); !strings.Contains(h, "Says where, now.") {
		t.Errorf("after didChange, hover = %s", h)
	}
	if got := s.indexes.parsed.Load(); got != parsed+2 {
		t.Errorf("after didChange the bundle was parsed %d times, want once (2 files)", got-parsed)
	}

	// A loaded file changes on disk: seen after the watcher says so, or a save.
	helpers := filepath.Join(dir, "lib", "helpers.star")
	if err := os.WriteFile(helpers, []byte(strings.Replace(h29Helpers, "Describes the workspace of ctx.", "Describes it anew.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.didChangeWatchedFiles(nil, &protocol.DidChangeWatchedFilesParams{
		Changes: []protocol.FileEvent{{URI: uriOf(helpers), Type: protocol.FileChangeTypeChanged}}}); err != nil {
		t.Fatal(err)
	}
	if h := hover(edited, "describe", 1); !strings.Contains(h, "Describes it anew.") {
		t.Errorf("after a watched change, hover = %s", h)
	}
	if err := os.WriteFile(helpers, []byte(strings.Replace(h29Helpers, "Describes the workspace of ctx.", "Saved.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.didSave(nil, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uriOf(helpers)}}); err != nil {
		t.Fatal(err)
	}
	if h := hover(edited, "describe", 1); !strings.Contains(h, "Saved.") {
		t.Errorf("after didSave, hover = %s", h)
	}
}
