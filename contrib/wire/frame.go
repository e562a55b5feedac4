// Package wire is the channel protocol between a plugin host and a worker
// process that runs one plugin generation (process isolation, issue 11). It
// sits below both sides: the host side (lifecycle/worker) and the worker
// side (builtins/worker) meet here, so lifecycle keeps importing no Starlark
// and builtins no lifecycle.
//
// A frame is a 4-byte big-endian length followed by that many bytes: a kind
// byte, an 8-byte big-endian call id, a 1-byte method length, the method, and
// the body (JSON for every method of this package). Frames longer than
// maxFrame, an unknown kind or a method running past the frame are garbage:
// the reader stops and the host kills the worker.
package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// kind says what a frame is.
type kind uint8

// The frame kinds.
const (
	// kindCall asks the other side to run Method with Body; a kindReply or
	// kindError with the same ID answers it.
	kindCall kind = 1 + iota
	// kindReply answers a call with its result body.
	kindReply
	// kindError answers a call with an error message as body.
	kindError
	// kindCancel asks the other side to cancel the call ID it is running.
	kindCancel
	// kindNotify is a one-way message: no reply. A non-zero ID names the
	// receiver's call it was sent within (Conn.NotifyWithin).
	kindNotify
	// kindCallWithin is a kindCall made while serving the other side's
	// call P: the body starts with P's 8-byte big-endian id, then the
	// call's body. The receiver serves it with the values of the context
	// it called P with (the MCP request a sampling model call needs).
	kindCallWithin
	kindEnd
)

// maxFrame bounds one frame (a bundle snapshot travels in one frame).
const maxFrame = 64 << 20

// headerLen is kind + id + method length.
const headerLen = 1 + 8 + 1

// frame is one message on the channel.
type frame struct {
	Kind   kind
	ID     uint64
	Method string
	Body   []byte
}

// ErrGarbage is wrapped by every error about a malformed frame.
var ErrGarbage = errors.New("garbage on the worker channel")

// appendFrame appends f, length prefix included, to buf.
func appendFrame(buf []byte, f frame) ([]byte, error) {
	if len(f.Method) > 255 {
		return buf, fmt.Errorf("method %q is too long", f.Method)
	}
	n := headerLen + len(f.Method) + len(f.Body)
	if n > maxFrame {
		return buf, fmt.Errorf("frame of %d bytes exceeds the limit of %d", n, maxFrame)
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	buf = append(buf, byte(f.Kind))
	buf = binary.BigEndian.AppendUint64(buf, f.ID)
	buf = append(buf, byte(len(f.Method)))
	buf = append(buf, f.Method...)
	return append(buf, f.Body...), nil
}

// decode parses one frame's payload (the bytes after the length prefix).
// The frame's Body aliases p.
func decode(p []byte) (frame, error) {
	if len(p) < headerLen {
		return frame{}, fmt.Errorf("%w: a frame of %d bytes is shorter than its header", ErrGarbage, len(p))
	}
	k := kind(p[0])
	if k == 0 || k >= kindEnd {
		return frame{}, fmt.Errorf("%w: unknown frame kind %d", ErrGarbage, p[0])
	}
	m := int(p[9])
	if headerLen+m > len(p) {
		return frame{}, fmt.Errorf("%w: method length %d runs past the frame", ErrGarbage, m)
	}
	return frame{Kind: k, ID: binary.BigEndian.Uint64(p[1:9]), Method: string(p[headerLen : headerLen+m]), Body: p[headerLen+m:]}, nil
}

// frameReader reads frames from a stream.
type frameReader struct {
	r   *bufio.Reader
	buf []byte
}

// newReader returns a frame reader over r.
func newReader(r io.Reader) *frameReader { return &frameReader{r: bufio.NewReaderSize(r, 64<<10)} }

// Read returns the next frame. Its Body is valid until the next Read. At a
// clean end of stream it returns io.EOF; a stream cut inside a frame is
// io.ErrUnexpectedEOF; a malformed frame wraps ErrGarbage.
func (r *frameReader) Read() (frame, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r.r, hdr[:]); err != nil {
		return frame{}, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxFrame {
		return frame{}, fmt.Errorf("%w: a frame of %d bytes exceeds the limit of %d", ErrGarbage, n, maxFrame)
	}
	if cap(r.buf) < int(n) {
		r.buf = make([]byte, n)
	}
	p := r.buf[:n]
	if _, err := io.ReadFull(r.r, p); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return frame{}, err
	}
	return decode(p)
}
