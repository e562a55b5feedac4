package mcpserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lockedWriter serialises whole-message writes: the SDK's and guardLines'
// error answers share the output stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }

// MaxLineBytes bounds one line of the stdio transport (the newline not
// counted). A longer line is not buffered: it is skipped to its end and
// answered with an Invalid Request error (-32600, id null), and the session
// goes on. It is the SDK's own frame limit (mcp.DefaultMaxLineLength),
// which would end the whole session instead.
const MaxLineBytes = mcp.DefaultMaxLineLength

// guardLines passes the lines of r that are JSON-RPC messages on to the SDK
// and answers every other line itself on w. The SDK's stdio transport ends
// the whole session on one malformed line (it stops decoding at a syntax
// error and fails Read on a bad message), so a client's typo would take the
// server down; JSON-RPC asks for an error answer with id null instead.
// Closing the result closes r when r is a Closer.
func guardLines(r io.Reader, w io.Writer) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReader(r)
		for {
			line, long, err := readLine(br)
			var code int64
			var msg string
			switch {
			case long:
				code, msg = jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the line is longer than %d bytes", MaxLineBytes)
			case len(bytes.TrimSpace(line)) > 0:
				code, msg = checkLine(line)
			}
			if code != 0 {
				if werr := writeLineError(w, code, msg); werr != nil {
					pw.CloseWithError(werr)
					return
				}
			} else if len(bytes.TrimSpace(line)) > 0 {
				if _, werr := pw.Write(line); werr != nil {
					return // the SDK closed its end
				}
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return guardedReader{pr, r}
}

// readLine reads one line with its newline; a line longer than
// MaxLineBytes is read to its end and dropped (long).
func readLine(br *bufio.Reader) (line []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > MaxLineBytes+2 { // + "\r\n"
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err != bufio.ErrBufferFull {
			return line, long, err
		}
	}
}

type guardedReader struct {
	*io.PipeReader
	src io.Reader
}

func (g guardedReader) Close() error {
	g.PipeReader.Close()
	if c, ok := g.src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// checkLine returns the JSON-RPC error code and message for a line that is
// no message (or batch of messages) the SDK can read, or 0.
func checkLine(line []byte) (int64, string) {
	if !json.Valid(line) {
		return jsonrpc.CodeParseError, "parse error: the line is not one JSON value"
	}
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) == nil {
		if len(batch) == 0 {
			return jsonrpc.CodeInvalidRequest, "invalid request: empty batch"
		}
		for _, raw := range batch {
			if _, err := jsonrpc.DecodeMessage(raw); err != nil {
				return jsonrpc.CodeInvalidRequest, "invalid request in batch: " + err.Error()
			}
		}
		return 0, ""
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return 0, ""
}

// writeLineError writes one error answer with id null.
func writeLineError(w io.Writer, code int64, msg string) error {
	type rpcError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	data, err := json.Marshal(struct {
		Version string    `json:"jsonrpc"`
		ID      *struct{} `json:"id"`
		Error   rpcError  `json:"error"`
	}{"2.0", nil, rpcError{code, msg}})
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
