package wire

import (
	"bufio"
	"bytes"
	"io"

	"github.com/crystal-star/crystal-star/starhost/models"
)

// maxEventLine bounds one line of an event stream.
const maxEventLine = 1 << 20

// Events reads a server-sent event stream (text/event-stream, as the
// WHATWG spec defines it) and calls f with each event's name ("message"
// when it names none) and data (its data lines joined by "\n"). Comments
// and the id and retry fields are skipped; an event the stream ends
// before completing is discarded. It stops at f's first error, at the end
// of the stream, or after models.MaxResponseBody bytes (an error).
func Events(r io.Reader, f func(event string, data []byte) error) error {
	sc := bufio.NewScanner(io.LimitReader(r, models.MaxResponseBody+1))
	sc.Buffer(make([]byte, 0, 4096), maxEventLine)
	var event string
	var data []byte
	hasData := false
	read := 0
	dispatch := func() error {
		defer func() { event, data, hasData = "", data[:0], false }()
		if !hasData {
			return nil
		}
		name := event
		if name == "" {
			name = "message"
		}
		return f(name, data)
	}
	for sc.Scan() {
		line := sc.Bytes()
		if read += len(line) + 1; read > models.MaxResponseBody {
			return models.Malformed("the event stream is larger than %d bytes", models.MaxResponseBody)
		}
		if len(line) == 0 {
			if err := dispatch(); err != nil {
				return err
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			event = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data, hasData = append(data, value...), true
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return nil // an event the stream ended before its blank line is discarded, as the spec says
}
