// Package wire is the channel protocol between a plugin host and a worker
// process that runs one plugin generation (process isolation, issue 11). It
// sits below both sides: the host side (lifecycle/worker) and the worker
// side (builtins/worker) meet here, so lifecycle keeps importing no Starlark
// and builtins no lifecycle.
//
// A frame is a 4-byte big-endian length followed by that many bytes: a kind
// byte (its high bit: the sender rang the bell for the frame,
// conn_demand.go), an 8-byte big-endian call id, a 1-byte method length,
// the method, and the body (JSON for every method of this package, or the
// compact encoding of a tool call's, compact.go). Frames longer than
// maxFrame, an unknown kind or a method running past the frame are garbage:
// the reader stops and the host kills the worker.
package wire

import (
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

	// kindLead is never on the wire: it tells a caller waiting for its
	// reply that the read side is now its own (conn_demand.go).
	kindLead kind = 0x7f
)

// rungBit marks a frame the worker rang the bell for (Conn.RingOn): it
// wrote it while serving no call of the host, so the host may not be
// reading. It is the kind byte's high bit.
const rungBit = 0x80

// maxFrame bounds one frame (a bundle snapshot travels in one frame).
const maxFrame = 64 << 20

// headerLen is kind + id + method length.
const headerLen = 1 + 8 + 1

// frame is one message on the channel.
type frame struct {
	Kind   kind
	Rung   bool // the sender rang the bell for it (rungBit)
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
	k := byte(f.Kind)
	if f.Rung {
		k |= rungBit
	}
	buf = append(buf, k)
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
	k, rung := kind(p[0]&^rungBit), p[0]&rungBit != 0
	if k == 0 || k >= kindEnd {
		return frame{}, fmt.Errorf("%w: unknown frame kind %d", ErrGarbage, p[0])
	}
	m := int(p[9])
	if headerLen+m > len(p) {
		return frame{}, fmt.Errorf("%w: method length %d runs past the frame", ErrGarbage, m)
	}
	return frame{Kind: k, Rung: rung, ID: binary.BigEndian.Uint64(p[1:9]), Method: string(p[headerLen : headerLen+m]), Body: p[headerLen+m:]}, nil
}

// frameReader reads frames from a stream. It keeps what it read of a frame
// when a read fails in the middle of one (a read deadline interrupting a
// reader on the host side, docs/isolation.md): the next Read resumes.
type frameReader struct {
	r          io.Reader
	buf        []byte // buf[start:end] was read and not yet returned
	start, end int
}

// readerSize is the reader's buffer while frames are small.
const readerSize = 64 << 10

// newReader returns a frame reader over r.
func newReader(r io.Reader) *frameReader {
	return &frameReader{r: spinning(r), buf: make([]byte, readerSize)}
}

// Read returns the next frame. Its Body is valid until the next Read. At a
// clean end of stream it returns io.EOF; a stream cut inside a frame is
// io.ErrUnexpectedEOF; a malformed frame wraps ErrGarbage. Any other error
// of the underlying reader is returned as it is, and the frame read so far
// is kept for the next Read.
func (r *frameReader) Read() (frame, error) {
	for {
		need := 4
		if avail := r.end - r.start; avail >= 4 {
			n := binary.BigEndian.Uint32(r.buf[r.start:])
			if n > maxFrame {
				return frame{}, fmt.Errorf("%w: a frame of %d bytes exceeds the limit of %d", ErrGarbage, n, maxFrame)
			}
			need += int(n)
			if avail >= need {
				p := r.buf[r.start+4 : r.start+need]
				r.start += need
				return decode(p)
			}
		}
		r.room(need)
		m, err := r.r.Read(r.buf[r.end:])
		r.end += m
		if m == 0 && err != nil {
			if err == io.EOF && r.end > r.start {
				err = io.ErrUnexpectedEOF
			}
			return frame{}, err
		}
	}
}

// room makes the buffer hold a frame of need bytes from start: the unread
// bytes move to the front, and the buffer grows for a large frame (a
// bundle) and shrinks back once it is read.
func (r *frameReader) room(need int) {
	if r.start == r.end {
		r.start, r.end = 0, 0
		if cap(r.buf) > 1<<20 && need <= readerSize {
			r.buf = make([]byte, readerSize)
		}
	}
	if r.start+need <= len(r.buf) && r.end < len(r.buf) {
		return
	}
	buf := r.buf
	if need > len(buf) {
		buf = make([]byte, need)
	}
	r.end = copy(buf, r.buf[r.start:r.end])
	r.start, r.buf = 0, buf
}
