package builtins

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/crystal-star/crystal-star/contrib"
)

// ToJSON encodes a Starlark value as JSON: None, bools, ints, finite floats,
// strings, lists, tuples, dicts with string keys and structs. It is the one
// place Starlark values become JSON (tool results, schemas, exports to Go).
// Nesting is bounded by contrib.MaxNesting (a self-referencing list fails
// cleanly instead of overflowing the stack) and the containers walked by
// maxContainers (a value that shares itself exponentially fails instead of
// growing without end).
func ToJSON(v starlark.Value) ([]byte, error) {
	var buf bytes.Buffer
	budget := maxContainers
	if err := encode(&buf, v, 0, &budget); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func encode(buf *bytes.Buffer, v starlark.Value, depth int, budget *int) error {
	if depth > contrib.MaxNesting {
		return fmt.Errorf("value nested more than %d levels deep (a cycle?)", contrib.MaxNesting)
	}
	switch v.(type) {
	case starlark.String, starlark.Int, starlark.Float, starlark.Bool, starlark.NoneType:
	default:
		if *budget--; *budget < 0 {
			return fmt.Errorf("value holds more than %d lists, dicts and other containers", maxContainers)
		}
	}
	switch v := v.(type) {
	case starlark.NoneType:
		buf.WriteString("null")
	case starlark.Bool:
		buf.WriteString(strconv.FormatBool(bool(v)))
	case starlark.Int:
		buf.WriteString(v.String())
	case starlark.Float:
		f := float64(v)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return fmt.Errorf("cannot encode %s as JSON", v)
		}
		buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case starlark.String:
		writeString(buf, string(v))
	case starlark.Indexable: // list, tuple
		buf.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := encode(buf, v.Index(i), depth+1, budget); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case *starlark.Dict:
		buf.WriteByte('{')
		for i, item := range v.Items() {
			k, ok := item[0].(starlark.String)
			if !ok {
				return fmt.Errorf("dict key %s is a %s; JSON object keys must be strings", item[0], item[0].Type())
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, string(k))
			buf.WriteByte(':')
			if err := encode(buf, item[1], depth+1, budget); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case *starlarkstruct.Struct:
		names := v.AttrNames()
		buf.WriteByte('{')
		for i, name := range names {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, name)
			buf.WriteByte(':')
			field, _ := v.Attr(name)
			if err := encode(buf, field, depth+1, budget); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	default:
		return fmt.Errorf("cannot encode a %s as JSON", v.Type())
	}
	return nil
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // never fails for a string
	buf.Write(b)
}

// FromJSON converts a decoded JSON value (as produced by encoding/json with
// UseNumber, or plain float64 numbers) into a Starlark value. Object keys are
// inserted in sorted order so the result is deterministic.
func FromJSON(v any) starlark.Value {
	switch v := v.(type) {
	case nil:
		return starlark.None
	case bool:
		return starlark.Bool(v)
	case string:
		return starlark.String(v)
	case json.Number:
		return numberValue(string(v))
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return starlark.MakeInt64(int64(v))
		}
		return starlark.Float(v)
	case int:
		return starlark.MakeInt(v)
	case int64:
		return starlark.MakeInt64(v)
	case []any:
		elems := make([]starlark.Value, len(v))
		for i, e := range v {
			elems[i] = FromJSON(e)
		}
		return starlark.NewList(elems)
	case map[string]any:
		var small [8]string // tool arguments: a few keys, sorted without an allocation
		keys := small[:0]
		if len(v) > len(small) {
			keys = make([]string, 0, len(v))
		}
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		d := starlark.NewDict(len(v))
		for _, k := range keys {
			_ = d.SetKey(starlark.String(k), FromJSON(v[k]))
		}
		return d
	case []string:
		elems := make([]starlark.Value, len(v))
		for i, e := range v {
			elems[i] = starlark.String(e)
		}
		return starlark.NewList(elems)
	}
	return starlark.String(fmt.Sprint(v))
}

// numberValue is a JSON number as Starlark holds it: an int when it is
// written as one, else a float.
func numberValue(text string) starlark.Value {
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return starlark.MakeInt64(i)
	}
	if b, ok := new(big.Int).SetString(text, 10); ok {
		return starlark.MakeBigInt(b)
	}
	f, _ := strconv.ParseFloat(text, 64)
	return starlark.Float(f)
}

// starlarkJSON builds Starlark values straight from JSON
// (contrib.JSONBuilder): exactly what FromJSON gives for the Go form, a
// Starlark tool's arguments decoded once instead of into Go values first.
type starlarkJSON struct{}

// starlarkArgs is the form a Starlark tool takes its arguments in
// (a contrib.FormRunner's ArgsForm: stageTool's Run brings it).
var starlarkArgs contrib.JSONBuilder = starlarkJSON{}

func (starlarkJSON) Null() any              { return starlark.None }
func (starlarkJSON) Bool(b bool) any        { return starlark.Bool(b) }
func (starlarkJSON) String(s string) any    { return starlark.String(s) }
func (starlarkJSON) Number(text string) any { return numberValue(text) }
func (starlarkJSON) FromGo(v any) any       { return FromJSON(v) }

func (starlarkJSON) Array(elems []any) any {
	vs := make([]starlark.Value, len(elems))
	for i, e := range elems {
		vs[i] = e.(starlark.Value)
	}
	return starlark.NewList(vs)
}

// Object inserts the keys in sorted order, as FromJSON does; a repeated
// key keeps its last value.
func (starlarkJSON) Object(ms []contrib.JSONMember) any {
	byKey := func(a, b contrib.JSONMember) int { return cmp.Compare(a.Key, b.Key) }
	if !slices.IsSortedFunc(ms, byKey) {
		slices.SortStableFunc(ms, byKey)
	}
	d := starlark.NewDict(len(ms))
	for _, m := range ms {
		_ = d.SetKey(starlark.String(m.Key), m.Value.(starlark.Value))
	}
	return d
}

// decodeJSON decodes one JSON value with numbers kept as json.Number, the
// form FromJSON reads.
func decodeJSON(data []byte) (any, error) {
	if err := contrib.CheckJSONNesting(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// copyJSON returns a deep copy of v as a decoded JSON value, so it can be
// kept beyond the thread that made it.
func copyJSON(v starlark.Value) (any, error) {
	data, err := ToJSON(v)
	if err != nil {
		return nil, err
	}
	return decodeJSON(data)
}
