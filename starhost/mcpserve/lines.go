package mcpserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				if code, msg := checkLine(line); code != 0 {
					if werr := writeLineError(w, code, msg); werr != nil {
						pw.CloseWithError(werr)
						return
					}
				} else if _, werr := pw.Write(line); werr != nil {
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
