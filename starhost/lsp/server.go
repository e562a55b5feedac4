// Package lsp is the language server of `crystal-star lsp`: diagnostics
// from `crystal-star check` as the author types, hover documentation and
// completion from the tables check uses and the text of docs/api.md,
// hover, completion, signature help, references and rename on the
// author's own names across the bundle (index.go), ctx. completion by the
// callback kind check assigns, quick fixes for check's suggestions,
// go-to-definition across load(), and formatting through `crystal-star
// fmt`.
//
// The protocol types and method dispatch are github.com/tliron/glsp's
// (LSP 3.16); the JSON-RPC connection is github.com/sourcegraph/jsonrpc2,
// which glsp's own server is built on, over the server's own framing
// (frameStream), which answers a malformed message instead of ending the
// session. The server reads plugin files only from the bundle snapshot
// activation reads (files). glsp's server package is not used:
// it reads os.Stdin and writes os.Stdout only and logs through its own
// logging library, and Serve must run over any stream (a test's pipe).
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
	"github.com/crystal-star/crystal-star/starhost/format" // formatting, and the Style* warnings of its diagnostics
)

// Options configure Serve.
type Options struct {
	// Check are the host options diagnostics are computed with (home,
	// workspace, built-in names), as `crystal-star check` reads them.
	Check starhost.Options
	// Debounce is how long diagnostics wait for typing to pause
	// (DefaultDebounce when zero).
	Debounce time.Duration
}

// DefaultDebounce is the pause after the last change before a plugin is
// checked again.
const DefaultDebounce = 250 * time.Millisecond

// Serve speaks the Language Server Protocol over stream until the client
// sends exit, the stream closes or ctx ends. It returns nil then.
func Serve(ctx context.Context, stream io.ReadWriteCloser, opts Options) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	s := &server{opts: opts, docs: map[string]string{}, timers: map[string]*time.Timer{}, published: map[string][]string{},
		workers: check.NewWorkers()}
	defer s.workers.Close() // after the last check (s.checks.Wait below)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	h := &protocol.Handler{
		Initialize:                     s.initialize,
		Initialized:                    func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:                       func(*glsp.Context) error { return nil },
		Exit:                           func(*glsp.Context) error { return nil },
		SetTrace:                       func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		TextDocumentDidOpen:            s.didOpen,
		TextDocumentDidChange:          s.didChange,
		TextDocumentDidSave:            s.didSave,
		TextDocumentDidClose:           s.didClose,
		TextDocumentHover:              s.hover,
		TextDocumentCompletion:         s.completion,
		TextDocumentDefinition:         s.definition,
		TextDocumentFormatting:         s.formatting,
		TextDocumentSignatureHelp:      s.signatureHelp,
		TextDocumentReferences:         s.references,
		TextDocumentRename:             s.rename,
		TextDocumentPrepareRename:      s.prepareRename,
		WorkspaceDidChangeWatchedFiles: s.didChangeWatchedFiles,
	}
	conn := jsonrpc2.NewConn(ctx, newFrameStream(stream),
		jsonrpc2.HandlerWithError(func(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			return s.handle(ctx, conn, req, h)
		}))
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	cancel()
	s.stopTimers()
	s.checks.Wait()
	return nil
}

// server is one session.
type server struct {
	opts   Options
	ctx    context.Context
	checks sync.WaitGroup // running checks
	// workers runs the dry runs of every check of the session in one
	// worker process, started on the first and kept, so a check as the
	// author types does not pay for a process start.
	workers *check.Workers
	// indexes are the parsed bundles requests share (index.go).
	indexes indexCache

	mu        sync.Mutex
	conn      *jsonrpc2.Conn
	docs      map[string]string      // open documents by path
	timers    map[string]*time.Timer // pending checks by plugin directory
	published map[string][]string    // plugin directory -> paths given diagnostics
	runMu     sync.Mutex             // one check at a time
}

// handle dispatches one request or notification through glsp's handler,
// as glsp's own server does.
// A handler that panics on input nobody foresaw answers an internal
// error; the session goes on.
func (s *server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request, h *protocol.Handler) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprintf("%s failed: %v", req.Method, r)}
		}
	}()
	gctx := &glsp.Context{Method: req.Method,
		Notify: func(method string, params any) { _ = conn.Notify(ctx, method, params) },
		Call:   func(method string, params, result any) { _ = conn.Call(ctx, method, params, result) },
	}
	if req.Params != nil {
		gctx.Params = *req.Params
	}
	switch req.Method {
	case string(protocol.MethodExit):
		return nil, conn.Close()
	case string(protocol.MethodTextDocumentCodeAction):
		r, err := s.codeAction(gctx.Params) // glsp would drop the diagnostics' codes
		if err != nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
		}
		return r, nil
	}
	r, validMethod, validParams, err := h.Handle(gctx)
	switch {
	case !validMethod:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + req.Method}
	case !validParams:
		msg := "invalid params"
		if err != nil {
			msg = err.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case err != nil:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: err.Error()}
	}
	return r, nil
}

func (s *server) initialize(_ *glsp.Context, _ *protocol.InitializeParams) (any, error) {
	full := protocol.TextDocumentSyncKindFull
	yes := true
	version := "0.1.0"
	return protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{OpenClose: &yes, Change: &full,
				Save: protocol.SaveOptions{IncludeText: &yes}},
			HoverProvider:              true,
			CompletionProvider:         &protocol.CompletionOptions{TriggerCharacters: []string{".", "\"", "(", ","}},
			DefinitionProvider:         true,
			DocumentFormattingProvider: true,
			SignatureHelpProvider:      &protocol.SignatureHelpOptions{TriggerCharacters: []string{"(", ","}},
			ReferencesProvider:         true,
			RenameProvider:             protocol.RenameOptions{PrepareProvider: &yes},
			CodeActionProvider: protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix}},
		},
		ServerInfo: &protocol.InitializeResultServerInfo{Name: "crystal-star", Version: &version},
	}, nil
}

// pathOf returns the file path of a file:// URI.
func pathOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return filepath.FromSlash(u.Path)
}

// uriOf returns the file:// URI of a path.
func uriOf(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func (s *server) setDoc(uri string, text *string) {
	p := pathOf(uri)
	s.mu.Lock()
	if text == nil {
		delete(s.docs, p)
	} else {
		s.docs[p] = *text
	}
	s.mu.Unlock()
	s.changed(p)
}

// changed drops the indexes of path's plugin and checks it again once
// typing pauses.
func (s *server) changed(path string) {
	dir, _ := pluginDir(path)
	s.indexes.drop(dir, path)
	s.schedule(path)
}

func (s *server) didOpen(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	s.setDoc(p.TextDocument.URI, &p.TextDocument.Text)
	return nil
}

func (s *server) didChange(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	for _, ch := range p.ContentChanges {
		if whole, ok := ch.(protocol.TextDocumentContentChangeEventWhole); ok {
			s.setDoc(p.TextDocument.URI, &whole.Text)
		}
	}
	return nil
}

func (s *server) didSave(_ *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	if p.Text != nil {
		s.setDoc(p.TextDocument.URI, p.Text)
	} else {
		s.changed(pathOf(p.TextDocument.URI))
	}
	return nil
}

// didChangeWatchedFiles: a file changed outside the editor (or a
// plugin.toml came or went, which moves plugin boundaries): every index is
// built again on its next use.
func (s *server) didChangeWatchedFiles(_ *glsp.Context, _ *protocol.DidChangeWatchedFilesParams) error {
	s.indexes.drop("", "")
	return nil
}

func (s *server) didClose(_ *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.setDoc(p.TextDocument.URI, nil) // the file on disk is what counts now
	return nil
}

// doc returns the editor's text of path, if it is open.
func (s *server) doc(path string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.docs[path]
	return t, ok
}

// text returns the editor's text of path, else the file's in its plugin's
// bundle (files).
func (s *server) text(path string) string {
	t, _ := s.filesOf(path).text(path)
	return t
}

func (s *server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	path := pathOf(p.TextDocument.URI)
	ix, rel := s.indexOf(path, nil)
	doc := ix.hoverOwn(rel, int(p.Position.Line), int(p.Position.Character))
	if doc == "" {
		doc = Hover(s.text(path), int(p.Position.Line), int(p.Position.Character))
	}
	if doc == "" {
		return nil, nil
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc}}, nil
}

var completionKinds = map[CompletionKind]protocol.CompletionItemKind{
	KindKeyword: protocol.CompletionItemKindProperty, KindField: protocol.CompletionItemKindField,
	KindValue: protocol.CompletionItemKindEnumMember, KindFunction: protocol.CompletionItemKindFunction,
	KindVariable: protocol.CompletionItemKindVariable,
}

func (s *server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	path := pathOf(p.TextDocument.URI)
	ix, rel := s.indexOf(path, &p.Position)
	items := []protocol.CompletionItem{}
	for _, c := range ix.complete(rel, s.text(path), int(p.Position.Line), int(p.Position.Character)) {
		kind := completionKinds[c.Kind]
		item := protocol.CompletionItem{Label: c.Label, Kind: &kind}
		if c.Detail != "" {
			item.Detail = &c.Detail
		}
		if c.Doc != "" {
			item.Documentation = protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: c.Doc}
		}
		if c.Insert != "" {
			item.InsertText = &c.Insert
		}
		items = append(items, item)
	}
	return items, nil
}

func (s *server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	path := pathOf(p.TextDocument.URI)
	f := s.filesOf(path)
	text, _ := f.text(path)
	loc, ok := Definition(path, text, int(p.Position.Line), int(p.Position.Character), f.load)
	if !ok {
		return nil, nil
	}
	pos := protocol.Position{Line: protocol.UInteger(loc.Line), Character: protocol.UInteger(loc.Char)}
	return protocol.Location{URI: uriOf(loc.Path), Range: protocol.Range{Start: pos, End: pos}}, nil
}

// formatting formats the whole document with `crystal-star fmt`; a
// document that does not parse is left as it is.
func (s *server) formatting(_ *glsp.Context, p *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	path := pathOf(p.TextDocument.URI)
	text := s.text(path)
	out, err := format.Source(filepath.Base(path), []byte(text))
	if err != nil || string(out) == text {
		return []protocol.TextEdit{}, nil
	}
	lines := strings.Count(text, "\n") + 1
	return []protocol.TextEdit{{
		Range:   protocol.Range{End: protocol.Position{Line: protocol.UInteger(lines)}},
		NewText: string(out),
	}}, nil
}

// errNoPlugin: the file is in no plugin directory.
var errNoPlugin = errors.New("no plugin.toml above the file")

// pluginDir returns the nearest directory at or above path's that holds a
// plugin.toml.
func pluginDir(path string) (string, error) {
	for dir := filepath.Dir(path); ; {
		if _, err := os.Stat(filepath.Join(dir, "plugin.toml")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("%s: %w", path, errNoPlugin)
		}
		dir = up
	}
}

// schedule checks path's plugin once typing pauses.
func (s *server) schedule(path string) {
	dir, err := pluginDir(path)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.timers[dir]; t != nil && t.Stop() {
		s.checks.Done() // the stopped timer's check never runs
	}
	if s.ctx.Err() != nil {
		return
	}
	s.checks.Add(1)
	s.timers[dir] = time.AfterFunc(s.opts.Debounce, func() {
		defer s.checks.Done()
		s.check(dir)
	})
}

func (s *server) stopTimers() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for dir, t := range s.timers {
		if t.Stop() {
			s.checks.Done()
		}
		delete(s.timers, dir)
	}
}

func (s *server) notify(method string, params any) {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn != nil {
		_ = conn.Notify(s.ctx, method, params)
	}
}

// publish sends the diagnostics of one file.
func (s *server) publish(path string, diags []protocol.Diagnostic) {
	s.notify(string(protocol.ServerTextDocumentPublishDiagnostics),
		protocol.PublishDiagnosticsParams{URI: uriOf(path), Diagnostics: diags})
}
