package contrib

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// errSlowPath makes parseJSON give up; the caller then decodes with
// encoding/json, which also produces the error message users see.
var errSlowPath = errors.New("json: slow path")

// A JSONBuilder makes the values the argument decoder produces, so one
// parser builds either Go values or a plugin language's own values, with no
// conversion between the two (issue 26, point 4). A FormRunner's ArgsForm is one;
// nil means the Go form: map[string]any, []any, string, json.Number, bool
// and nil, as encoding/json with UseNumber decodes.
type JSONBuilder interface {
	Null() any
	Bool(b bool) any
	String(s string) any
	// Number gets an RFC 8259 number's text, which fits a float64.
	Number(text string) any
	// Array gets the elements in order; the slice is the parser's and is
	// reused after the call.
	Array(elems []any) any
	// Object gets the members in document order, a repeated key as often
	// as it was written (the last one counts, as in encoding/json). The
	// slice is the parser's: the builder may reorder it, not keep it.
	Object(members []JSONMember) any
	// FromGo converts a value in the Go form, for arguments decoded another
	// way (encoding/json's slow path, a Check done for Dispatch).
	FromGo(v any) any
}

// JSONMember is one member of a JSON object being built.
type JSONMember struct {
	Key   string
	Value any
	kind  argKind // what the flat schema check reads
}

// goValues builds the Go form (JSONBuilder).
type goValues struct{}

func (goValues) Null() any              { return nil }
func (goValues) Bool(b bool) any        { return b }
func (goValues) String(s string) any    { return s }
func (goValues) Number(text string) any { return json.Number(text) }
func (goValues) FromGo(v any) any       { return v }
func (goValues) Array(elems []any) any  { return append(make([]any, 0, len(elems)), elems...) }
func (goValues) Object(ms []JSONMember) any {
	m := make(map[string]any, len(ms))
	for _, e := range ms {
		m[e.Key] = e.Value // a repeated key keeps the last value, as encoding/json does
	}
	return m
}

var goForm JSONBuilder = goValues{}

// ParseJSON decodes one JSON value with b (nil: the Go form), with the
// refusals of tool arguments: invalid UTF-8, nesting deeper than
// MaxNesting and numbers no float64 holds are an error naming the JSON
// Pointer of the value. Input the fast parser declines (JSON it leaves to
// encoding/json, such as a lone surrogate escape) is decoded by
// encoding/json and converted with b.FromGo.
func ParseJSON(data []byte, b JSONBuilder) (any, error) {
	v, res, ok := decodeJSON(nil, data, b)
	if !ok {
		return nil, errors.New(res.Err.Message)
	}
	return v, nil
}

// parseJSON decodes one JSON value into what b builds, several times
// faster than encoding/json for the small objects tool arguments are. It
// accepts exactly RFC 8259 JSON followed by optional white space; on
// anything else — including input it could decode but declines to (invalid
// UTF-8, deep nesting) — it returns errSlowPath. With flat set, flatOK
// reports whether the value is an object the flat check proves valid.
func parseJSON(data []byte, b JSONBuilder, flat *flatSchema) (v any, flatOK bool, err error) {
	p := parsers.Get().(*jsonParser)
	defer p.release()
	p.data, p.b, p.flat = data, b, flat
	if len(data) <= maxSharedText {
		p.text = string(data)
	}
	v, err = p.value(0)
	if err != nil {
		return nil, false, err
	}
	p.space()
	if p.i != len(p.data) {
		return nil, false, errSlowPath
	}
	return v, p.flatOK, nil
}

// parsers keeps parsers with their stacks for the next call: a parser
// escapes (its stacks go to the builder), and a call's few allocations are
// a trivial call's cost (issue 26, point 4).
var parsers = sync.Pool{New: func() any {
	p := &jsonParser{}
	p.members, p.elems = p.smallMembers[:0], p.smallElems[:0]
	return p
}}

// release returns p to parsers, holding nothing of this call (a popped
// stack entry is cleared when popped; a failed parse leaves some).
func (p *jsonParser) release() {
	clear(p.members)
	clear(p.elems)
	p.members, p.elems = p.members[:0], p.elems[:0]
	if cap(p.members) > 64 || cap(p.elems) > 64 { // a large call's stacks are not kept
		p.members, p.elems = p.smallMembers[:0], p.smallElems[:0]
	}
	p.data, p.text, p.i, p.b, p.flat, p.flatOK = nil, "", 0, nil, nil, false
	parsers.Put(p)
}

// maxSharedText is the longest input whose strings share one copy of it:
// one allocation instead of one per string, and a small value a tool keeps
// holds at most this much alive.
const maxSharedText = 4 << 10

type jsonParser struct {
	data []byte
	text string // data as a string when short: unescaped strings are slices of it
	i    int
	b    JSONBuilder
	flat *flatSchema
	// flatOK: the top-level value is an object flat accepts.
	flatOK bool
	// The open arrays' elements and objects' members, innermost last.
	elems        []any
	members      []JSONMember
	smallElems   [4]any
	smallMembers [4]JSONMember
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
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return p.b.String(s), nil
	case c == 't':
		return p.b.Bool(true), p.literal("true")
	case c == 'f':
		return p.b.Bool(false), p.literal("false")
	case c == 'n':
		return p.b.Null(), p.literal("null")
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
	start := len(p.members)
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return p.endObject(depth, start), nil
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
		p.space()
		at := p.i
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, within(err, pointerToken(k))
		}
		m := JSONMember{Key: k, Value: v}
		if depth == 0 && p.flat != nil {
			m.kind = kindOf(p.data[at:p.i])
		}
		p.members = append(p.members, m)
		p.space()
		if p.i >= len(p.data) {
			return nil, errSlowPath
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return p.endObject(depth, start), nil
		default:
			return nil, errSlowPath
		}
	}
}

// endObject builds the object whose members start at start, and pops them.
func (p *jsonParser) endObject(depth, start int) any {
	ms := p.members[start:]
	if depth == 0 && p.flat != nil {
		p.flatOK = p.flat.accepts(ms)
	}
	v := p.b.Object(ms)
	clear(ms)
	p.members = p.members[:start]
	return v
}

func (p *jsonParser) array(depth int) (any, error) {
	p.i++ // [
	start := len(p.elems)
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return p.endArray(start), nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, within(err, strconv.Itoa(len(p.elems)-start))
		}
		p.elems = append(p.elems, v)
		p.space()
		if p.i >= len(p.data) {
			return nil, errSlowPath
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return p.endArray(start), nil
		default:
			return nil, errSlowPath
		}
	}
}

func (p *jsonParser) endArray(start int) any {
	es := p.elems[start:]
	v := p.b.Array(es)
	clear(es)
	p.elems = p.elems[:start]
	return v
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
			if p.text != "" {
				return p.text[start : p.i-1], nil
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
	n := p.data[start:p.i]
	if exp || p.i-start > 300 {
		if err := checkNumber(json.Number(n)); err != nil {
			return nil, err
		}
	}
	if p.text != "" {
		return p.b.Number(p.text[start:p.i]), nil
	}
	return p.b.Number(string(n)), nil
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
