package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// definitionAt asks for the definition at line:char of uri; nil when there
// is none.
func (c *client) definitionAt(uri string, line, char int) *protocol.Location {
	c.t.Helper()
	var loc *protocol.Location
	c.call("textDocument/definition", protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri}, Position: protocol.Position{Line: uint32(line), Character: uint32(char)}}}, &loc)
	return loc
}

// TestH24_2_DefinitionReadsOnlyTheBundle: go-to-definition resolves load()
// exactly as activation does — inside the plugin directory, regular files
// of its bundle snapshot only — so a load() of a file outside the
// directory, of /dev/zero, through a link out of it, or of a FIFO finds
// nothing and reads nothing, and the session answers the next request.
// Before, the server followed each: it read the outside file, died of
// /dev/zero and hung on the FIFO.
func TestH24_2_DefinitionReadsOnlyTheBundle(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside.star")
	if err := os.WriteFile(outside, []byte("secret = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	source := `load("../outside.star", "secret")
load("../../../../../../../../../../dev/zero", "zero")
load("/dev/zero", "abs")
load("link.star", "linked")
load("fifo.star", "piped")
load("lib/helpers.star", "describe")

x = [secret, zero, abs, linked, piped, describe]
`
	dir := testkit.Plugin{ID: "acme.lsp", Source: source,
		Files: map[string]string{"lib/helpers.star": "def describe(ctx):\n    return ctx.workspace\n"}}.Write(t, filepath.Join(root, "plug"))
	if err := os.Symlink(outside, filepath.Join(dir, "link.star")); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(dir, "fifo.star"))

	c := startSession(t, time.Hour)
	uri := uriOf(filepath.Join(dir, "plugin.star"))
	c.notify("textDocument/didOpen", protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri, LanguageID: "starlark", Version: 1, Text: source}})
	for i, name := range []string{"secret", "zero", "abs", "linked", "piped"} {
		if loc := c.definitionAt(uri, i, 8); loc != nil { // on the module string
			t.Errorf("definition on load %d's module = %+v; want none", i, loc)
		}
		use := strings.Index(source[strings.Index(source, "x = "):], name) // the name where x uses it
		if loc := c.definitionAt(uri, 7, use); loc != nil {
			t.Errorf("definition of %s = %+v; want none: its file is not in the bundle", name, loc)
		}
	}
	// The session goes on, and a load inside the bundle is followed.
	use := strings.Index(source[strings.Index(source, "x = "):], "describe")
	loc := c.definitionAt(uri, 7, use)
	if loc == nil || loc.URI != uriOf(filepath.Join(dir, "lib", "helpers.star")) || loc.Range.Start.Line != 0 {
		t.Errorf("definition of describe = %+v; want lib/helpers.star:0", loc)
	}
	// A document that is not open is read from the bundle too: the FIFO
	// itself gives no hover rather than a hang.
	if h := c.hover(uriOf(filepath.Join(dir, "fifo.star")), 0, 0); h != "" {
		t.Errorf("hover in a FIFO = %q", h)
	}
}

// malformed are messages the server answers with an error and outlives:
// each with the error code and the id of the answer.
var malformed = []struct {
	name, raw string
	code      int64
	id        string
}{
	{"not JSON", frame(`{{{{{`), jsonrpc2.CodeParseError, "null"},
	{"a batch", frame(`[]`), jsonrpc2.CodeInvalidRequest, "null"},
	{"not an object", frame(`"initialize"`), jsonrpc2.CodeInvalidRequest, "null"},
	{"no method or result", frame(`{"jsonrpc":"2.0","id":3}`), jsonrpc2.CodeInvalidRequest, "3"},
	{"a method that is no string", frame(`{"jsonrpc":"2.0","id":"x","method":5}`), jsonrpc2.CodeInvalidRequest, `"x"`},
	{"an empty body", "Content-Length: 0\r\n\r\n", jsonrpc2.CodeParseError, "null"},
	{"a negative length", "Content-Length: -5\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, jsonrpc2.CodeParseError, "null"},
	{"a length past int64", "Content-Length: 99999999999999999999999\r\n\r\n{}", jsonrpc2.CodeParseError, "null"},
	{"a length over the limit", fmt.Sprintf("Content-Length: %d\r\n\r\n{}", MaxMessageBytes+1), jsonrpc2.CodeParseError, "null"},
	{"no Content-Length", "Content-Type: application/vscode-jsonrpc\r\n\r\n{}", jsonrpc2.CodeParseError, "null"},
	{"a header line too long", strings.Repeat("X", 8000) + "\r\n\r\n", jsonrpc2.CodeParseError, "null"},
}

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// answer is a response as the test reads it.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc2.Error `json:"error"`
}

// readAnswer reads one framed response.
func readAnswer(t *testing.T, r *bufio.Reader) answer {
	t.Helper()
	var a answer
	if err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &a); err != nil {
		t.Fatalf("reading an answer: %v", err)
	}
	return a
}

// TestH24_2_MalformedMessagesAnswered: every malformed message — a body
// that is not JSON, a batch, a negative, huge or missing Content-Length —
// is answered with a JSON-RPC error (with the request's id where it has
// one) and the server answers the request after it. Before, each ended the
// server.
func TestH24_2_MalformedMessagesAnswered(t *testing.T) {
	for _, m := range malformed {
		t.Run(strings.ReplaceAll(m.name, " ", "_"), func(t *testing.T) {
			end := serve(t, time.Hour)
			go func() {
				io.WriteString(end, m.raw)
				io.WriteString(end, frame(`{"jsonrpc":"2.0","id":42,"method":"initialize","params":{}}`))
			}()
			r := bufio.NewReader(end)
			a := readAnswer(t, r)
			if a.Error == nil || a.Error.Code != m.code || string(a.ID) != m.id {
				t.Fatalf("answer = id %s, error %+v; want code %d, id %s", a.ID, a.Error, m.code, m.id)
			}
			if a = readAnswer(t, r); string(a.ID) != "42" || a.Error != nil || !bytes.Contains(a.Result, []byte(`"crystal-star"`)) {
				t.Errorf("the request after it: id %s, error %+v, result %s", a.ID, a.Error, a.Result)
			}
		})
	}
}

// FuzzH24_2_Transport feeds the server arbitrary bytes: it never panics or
// exits on them, and everything it writes is framed JSON-RPC 2.0.
func FuzzH24_2_Transport(f *testing.F) {
	for _, m := range malformed {
		f.Add([]byte(m.raw))
	}
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) +
		frame(`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///nowhere/x.star"},"position":{"line":0,"character":0}}}`) +
		frame(`{"jsonrpc":"2.0","id":3,"method":"textDocument/definition","params":{"textDocument":{"uri":"file:///dev/zero"},"position":{"line":0,"character":0}}}`) +
		frame(`{"jsonrpc":"2.0","id":4,"method":"textDocument/didChange","params":{"textDocument":{"uri":"x"},"contentChanges":[7]}}`)))
	home, ws := f.TempDir(), f.TempDir()
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		stream := struct {
			io.Reader
			io.Writer
			io.Closer
		}{bytes.NewReader(input), &out, io.NopCloser(nil)}
		if err := Serve(context.Background(), stream, Options{Debounce: time.Hour,
			Check: starhost.Options{Home: home, Workspace: ws}}); err != nil {
			t.Fatalf("Serve = %v", err)
		}
		r := bufio.NewReader(&out)
		for {
			var m map[string]any
			err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &m)
			if err == io.EOF {
				return
			}
			if err != nil || m["jsonrpc"] != "2.0" {
				t.Fatalf("the server wrote %v (%v)", m, err)
			}
		}
	})
}
