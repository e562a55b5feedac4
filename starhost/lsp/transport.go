package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// MaxMessageBytes bounds the body of one message the server reads: the
// same 16 MiB the MCP server allows a stdio line. A larger Content-Length
// is answered with a parse error and skipped (docs/editors.md, "Malformed
// messages").
const MaxMessageBytes = 16 << 20

// maxHeaderLines bounds the header lines of one message (LSP defines two).
const maxHeaderLines = 32

// contentLength is the header that frames a message, as the scanner
// looks for it (header names are matched without regard to case).
const contentLength = "content-length:"

// frameStream is the server's side of the base protocol: messages framed by
// a Content-Length header, as jsonrpc2.VSCodeObjectCodec frames them, but a
// malformed message is answered with a JSON-RPC error and the next one is
// read, where jsonrpc2's codec ends the connection. A body that is not JSON
// gets a parse error (-32700), JSON that is no request or response an
// invalid-request error (-32600), both with the request's id when one can
// be read, else null (JSON-RPC 2.0, section 5). A header that cannot be
// used — no Content-Length, a negative, malformed or oversized one, a line
// longer than the reader's buffer, too many lines — gets a parse error, and
// the stream is read on from the next "Content-Length:" it holds. Memory is
// bounded by MaxMessageBytes whatever the input. It implements
// jsonrpc2.ObjectStream and is safe for one reader and many writers.
type frameStream struct {
	conn   io.Closer
	r      *bufio.Reader
	wmu    sync.Mutex
	w      *bufio.Writer
	resync bool // the last header was unusable: skip to the next Content-Length
	// found is set when skipToHeader consumed a "Content-Length:": the
	// next header line read is its value.
	found bool
}

func newFrameStream(rwc io.ReadWriteCloser) *frameStream {
	return &frameStream{conn: rwc, r: bufio.NewReader(rwc), w: bufio.NewWriter(rwc)}
}

var _ jsonrpc2.ObjectStream = (*frameStream)(nil)

// WriteObject writes one message.
func (f *frameStream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	f.wmu.Lock()
	defer f.wmu.Unlock()
	fmt.Fprintf(f.w, "Content-Length: %d\r\n\r\n", len(data))
	f.w.Write(data)
	return f.w.Flush()
}

// ReadObject reads the next well-formed message into v, answering every
// malformed one before it. It returns an error only when the stream ends or
// fails, or an answer cannot be written.
func (f *frameStream) ReadObject(v any) error {
	for {
		body, err := f.readFrame()
		var bad *badMessage
		switch {
		case errors.As(err, &bad):
			if err := f.answer(bad); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		}
		if bad := checkBody(body); bad != nil {
			if err := f.answer(bad); err != nil {
				return err
			}
			continue
		}
		if err := json.Unmarshal(body, v); err != nil {
			if err := f.answer(&badMessage{code: jsonrpc2.CodeInvalidRequest, id: idOf(body), msg: err.Error()}); err != nil {
				return err
			}
			continue
		}
		return nil
	}
}

// Close closes the underlying stream.
func (f *frameStream) Close() error { return f.conn.Close() }

// badMessage is a malformed message and its answer.
type badMessage struct {
	code int64
	id   json.RawMessage // the request's id, or nil for null
	msg  string
}

func (b *badMessage) Error() string { return b.msg }

// answer writes the error response to a malformed message.
func (f *frameStream) answer(b *badMessage) error {
	id := b.id
	if id == nil {
		id = json.RawMessage("null")
	}
	return f.WriteObject(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc2.Error  `json:"error"`
	}{"2.0", id, jsonrpc2.Error{Code: b.code, Message: b.msg}})
}

func parseError(format string, args ...any) *badMessage {
	return &badMessage{code: jsonrpc2.CodeParseError, msg: fmt.Sprintf(format, args...)}
}

// readFrame reads one message's header and body. A *badMessage is a
// malformed message the stream can continue after; any other error ends it.
func (f *frameStream) readFrame() ([]byte, error) {
	if f.resync {
		if err := f.skipToHeader(); err != nil {
			return nil, err
		}
		f.resync = false
	}
	length, err := f.readHeader()
	if err != nil {
		var bad *badMessage
		if errors.As(err, &bad) {
			f.resync = true
		}
		return nil, err
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(f.r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// readHeader reads header lines up to the empty line and returns the
// Content-Length. Empty lines before the first header line (a line break
// a client put after a body) are skipped.
func (f *frameStream) readHeader() (int64, error) {
	length := int64(-1)
	var bad *badMessage
	seen := false // a header line was read: an empty line ends the header
	for lines := 0; ; lines++ {
		line, err := f.r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return 0, parseError("a header line is longer than %d bytes", f.r.Size())
		case err != nil:
			return 0, err
		case lines == maxHeaderLines:
			return 0, parseError("more than %d header lines", maxHeaderLines)
		}
		text := strings.TrimRight(string(line), "\r\n")
		if f.found {
			text, f.found = contentLength+text, false
		}
		if text == "" && !seen {
			continue // a line break between messages
		}
		if text == "" {
			break
		}
		seen = true
		name, value, ok := strings.Cut(text, ":")
		if !ok || !strings.EqualFold(name+":", contentLength) {
			continue // Content-Type and unknown headers are ignored
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		switch {
		case err != nil || n < 0:
			bad = parseError("Content-Length %q is not a length in bytes", strings.TrimSpace(value))
		case n > MaxMessageBytes:
			bad = parseError("Content-Length %d is over the limit of %d bytes", n, MaxMessageBytes)
		default:
			length = n
		}
	}
	switch {
	case bad != nil:
		return 0, bad
	case length < 0:
		return 0, parseError("the message has no Content-Length header")
	}
	return length, nil
}

// skipToHeader discards input up to and including the next
// "Content-Length:" (any case); readHeader reads its value next.
func (f *frameStream) skipToHeader() error {
	matched := 0
	for {
		c, err := f.r.ReadByte()
		if err != nil {
			return err
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == contentLength[matched]:
			matched++
		case c == contentLength[0]:
			matched = 1
		default:
			matched = 0
		}
		if matched == len(contentLength) {
			f.found = true
			return nil
		}
	}
}

// checkBody returns the answer to a body that is not one JSON-RPC message:
// not JSON, a batch (LSP has none) or not an object.
func checkBody(body []byte) *badMessage {
	if !json.Valid(body) {
		return parseError("the message body is not JSON")
	}
	switch trimmed := bytes.TrimSpace(body); {
	case trimmed[0] == '[':
		return &badMessage{code: jsonrpc2.CodeInvalidRequest, msg: "batches are not supported"}
	case trimmed[0] != '{':
		return &badMessage{code: jsonrpc2.CodeInvalidRequest, msg: "a message is a JSON object"}
	}
	return nil
}

// idOf returns the id of a message object when it is a number or a
// string, as an answer can carry it; else nil.
func idOf(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}
