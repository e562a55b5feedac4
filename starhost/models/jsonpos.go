package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// decodeError positions an encoding/json error.
func decodeError(data []byte, err error, fail func(off int64, format string, args ...any) error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fail(max(se.Offset-1, 0), "invalid JSON: %v", se)
	case errors.As(err, &te):
		at := walkJSON(data)
		return fail(at.before(te.Offset), "%s must be %s, not a JSON %s", fieldName(te.Field), te.Type, te.Value)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return fail(int64(len(data)), "the file is empty or ends too early")
	}
	if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name := strings.Trim(key, `"`)
		return fail(walkJSON(data).key(name), "unknown key %q", name)
	}
	return fail(0, "%v", err)
}

func fieldName(f string) string {
	if f == "" {
		return "the file"
	}
	return f
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	return line, int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

// jsonPlaces records where each value and key of a JSON document starts.
type jsonPlaces struct {
	values map[string]int64 // path → offset, e.g. providers[0].name
	keys   []jsonKey        // in document order
}

type jsonKey struct {
	name string
	off  int64
}

func (p *jsonPlaces) offset(path string) int64 {
	for path != "" {
		if off, ok := p.values[path]; ok {
			return off
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

func (p *jsonPlaces) key(name string) int64 {
	for _, k := range p.keys {
		if k.name == name {
			return k.off
		}
	}
	return 0
}

// before returns the start of the innermost value that starts before off.
func (p *jsonPlaces) before(off int64) int64 {
	best := int64(0)
	for _, o := range p.values {
		if o < off && o > best {
			best = o
		}
	}
	return best
}

// walkJSON maps a syntactically valid document's paths to offsets.
func walkJSON(data []byte) *jsonPlaces {
	p := &jsonPlaces{values: map[string]int64{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	next := func() int64 {
		off := dec.InputOffset()
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		return off
	}
	var value func(path string) bool
	value = func(path string) bool {
		off := next()
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		p.values[path] = off
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				koff := next()
				k, err := dec.Token()
				if err != nil {
					return false
				}
				name, _ := k.(string)
				p.keys = append(p.keys, jsonKey{name, koff})
				child := name
				if path != "" {
					child = path + "." + name
				}
				if !value(child) {
					return false
				}
			}
			_, err = dec.Token()
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if !value(fmt.Sprintf("%s[%d]", path, i)) {
					return false
				}
			}
			_, err = dec.Token()
		}
		return err == nil
	}
	value("")
	return p
}
