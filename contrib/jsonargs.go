package contrib

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// errSlowPath makes parseJSON give up; the caller then decodes with
// encoding/json, which also produces the error message users see.
var errSlowPath = errors.New("json: slow path")

// parseJSON decodes one JSON value into the same Go values as encoding/json
// with UseNumber (map[string]any, []any, string, json.Number, bool, nil),
// several times faster for the small objects tool arguments are. It accepts
// exactly RFC 8259 JSON followed by optional white space; on anything else —
// including input it could decode but declines to (invalid UTF-8, deep
// nesting) — it returns errSlowPath.
func parseJSON(data []byte) (any, error) {
	p := jsonParser{data: data}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.data) {
		return nil, errSlowPath
	}
	return v, nil
}

type jsonParser struct {
	data []byte
	i    int
}

// MaxNesting is how deeply the host nests JSON arrays and objects, or
// Starlark lists, dicts, tuples and structs, in every conversion it makes:
// tool arguments, tool results, json.encode and json.decode, str, repr and
// print. Deeper values are refused with an error, never walked: a walk
// inside one builtin cannot be interrupted (docs/isolation.md).
const MaxNesting = 100

// CheckJSONNesting refuses JSON text whose arrays and objects nest deeper
// than MaxNesting. It scans without decoding, so it is safe on any input.
func CheckJSONNesting(data []byte) error {
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if depth++; depth > MaxNesting {
				return fmt.Errorf("JSON nested more than %d levels deep", MaxNesting)
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return nil
}

func (p *jsonParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > MaxNesting {
		return nil, &argError{reason: fmt.Sprintf("nested more than %d levels deep", MaxNesting)}
	}
	p.space()
	if p.i >= len(p.data) {
		return nil, errSlowPath
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return nil, errSlowPath
}

func (p *jsonParser) literal(word string) error {
	if len(p.data)-p.i < len(word) || string(p.data[p.i:p.i+len(word)]) != word {
		return errSlowPath
	}
	p.i += len(word)
	return nil
}

func (p *jsonParser) object(depth int) (any, error) {
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, errSlowPath
		}
		k, err := p.str()
		if err != nil {
			if bad, ok := err.(*argError); ok {
				bad.reason = "invalid UTF-8 in a key"
			}
			return nil, err
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, errSlowPath
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, within(err, pointerToken(k))
		}
		m[k] = v // a repeated key keeps the last value, as encoding/json does
		p.space()
		if p.i >= len(p.data) {
			return nil, errSlowPath
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, nil
		default:
			return nil, errSlowPath
		}
	}
}

func (p *jsonParser) array(depth int) (any, error) {
	p.i++ // [
	a := []any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return a, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, within(err, strconv.Itoa(len(a)))
		}
		a = append(a, v)
		p.space()
		if p.i >= len(p.data) {
			return nil, errSlowPath
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return a, nil
		default:
			return nil, errSlowPath
		}
	}
}

func (p *jsonParser) str() (string, error) {
	p.i++ // "
	start := p.i
	// Fast path: no escapes, ASCII or valid UTF-8.
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			s := p.data[start:p.i]
			p.i++
			if !utf8.Valid(s) {
				return "", errInvalidUTF8()
			}
			return string(s), nil
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", errSlowPath
		}
		p.i++
	}
	return "", errSlowPath
}

// escaped decodes a string with escapes, starting over at start.
func (p *jsonParser) escaped(start int) (string, error) {
	buf := make([]byte, 0, p.i-start+16)
	buf = append(buf, p.data[start:p.i]...)
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(buf) {
				return "", errInvalidUTF8()
			}
			return string(buf), nil
		case c < 0x20:
			return "", errSlowPath
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.data) {
			return "", errSlowPath
		}
		p.i += 2
		switch e := p.data[p.i-1]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", errSlowPath
			}
			if utf16.IsSurrogate(r) {
				// A surrogate must be followed by its pair; otherwise
				// encoding/json's replacement rules apply: take the slow path.
				if p.i+1 >= len(p.data) || p.data[p.i] != '\\' || p.data[p.i+1] != 'u' {
					return "", errSlowPath
				}
				p.i += 2
				r2, ok := p.hex4()
				if !ok {
					return "", errSlowPath
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return "", errSlowPath
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", errSlowPath
		}
	}
	return "", errSlowPath
}

func (p *jsonParser) hex4() (rune, bool) {
	if len(p.data)-p.i < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.data[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

// number scans an RFC 8259 number and keeps its text, like UseNumber.
func (p *jsonParser) number() (any, error) {
	start := p.i
	if p.data[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.data) && p.data[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, errSlowPath
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, errSlowPath
		}
	}
	exp := p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E')
	if exp {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, errSlowPath
		}
	}
	n := json.Number(p.data[start:p.i])
	if exp || p.i-start > 300 {
		if err := checkNumber(n); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// argError is arguments refused although they are well-formed JSON: the
// reason, and the JSON Pointer to the value, built as the parser unwinds.
type argError struct {
	path   string
	reason string
}

func (e *argError) Error() string {
	path := e.path
	if path == "" {
		path = "/"
	}
	return path + ": " + e.reason // the Failure's code says "invalid_arguments"
}

func errInvalidUTF8() error { return &argError{reason: "invalid UTF-8 in a string"} }

// within prefixes the path of an argError with one more token.
func within(err error, token string) error {
	if bad, ok := err.(*argError); ok {
		bad.path = "/" + token + bad.path
	}
	return err
}

// pointerToken escapes an object key as a JSON Pointer token (RFC 6901).
func pointerToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// checkNumber refuses a number a float64 cannot hold (1e400): JSON peers
// read numbers as float64, and Starlark would see +inf.
func checkNumber(n json.Number) error {
	if f, err := strconv.ParseFloat(string(n), 64); err != nil && math.IsInf(f, 0) {
		return &argError{reason: fmt.Sprintf("number %.40s does not fit a float64", n)}
	}
	return nil
}

// vetDecoded applies the parser's refusals to a value encoding/json
// decoded: nesting and numbers, with their paths. (Invalid UTF-8 is gone by
// then; the caller checks the raw bytes.)
func vetDecoded(v any, depth int) error {
	if depth > MaxNesting {
		return &argError{reason: fmt.Sprintf("nested more than %d levels deep", MaxNesting)}
	}
	switch v := v.(type) {
	case json.Number:
		return checkNumber(v)
	case []any:
		for i, e := range v {
			if err := vetDecoded(e, depth+1); err != nil {
				return within(err, strconv.Itoa(i))
			}
		}
	case map[string]any:
		for k, e := range v {
			if err := vetDecoded(e, depth+1); err != nil {
				return within(err, pointerToken(k))
			}
		}
	}
	return nil
}
