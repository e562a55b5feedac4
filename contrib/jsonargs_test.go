package contrib

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func stdDecode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// TestDC6_FastDecoderAgreesWithEncodingJSON: the argument decoder gives
// exactly what encoding/json gives, or defers to it.
func TestDC6_FastDecoderAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e-3`, `-12E+4`, `"x"`,
		`{"text": "hello  world", "n": 3, "f": 1.25, "b": true, "z": null, "l": [1, "a", {"k": []}]}`,
		`{"esc": "a\"b\\c\/d\b\f\n\r\t", "u": "\u00e9\u4e2d", "pair": "\ud83d\ude00"}`,
		`{"dup": 1, "dup": 2}`, "  {\"ws\" :\t[ 1 , 2 ]\n}  ", `{"ü": "ß"}`,
	} {
		fast, err := parseJSON([]byte(in))
		if err != nil {
			t.Errorf("%s: fast path refused valid JSON: %v", in, err)
			continue
		}
		std, err := stdDecode([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Errorf("%s: fast %#v, encoding/json %#v", in, fast, std)
		}
	}
	for _, in := range []string{
		``, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `+1`, `"\x"`, "\"a\x01\"", `{"a":1}}`,
		`{}]`, `tru`, `"\ud83d"`, "\"\xff\"", `{"a":1} x`, `NaN`,
	} {
		if _, err := parseJSON([]byte(in)); err == nil {
			t.Errorf("%q: fast path accepted it", in)
		}
	}
}

func FuzzDC6_FastDecoder(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x\n", null, true]}`, `"\u00e9"`, `[{"k": {}}]`, `-1e5`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, err := parseJSON(data)
		if err != nil {
			return // deferred to encoding/json
		}
		var trailing any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var std any
		if derr := dec.Decode(&std); derr != nil || dec.Decode(&trailing) == nil {
			t.Fatalf("%q: fast path accepted what encoding/json rejects", data)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("%q: fast %#v, encoding/json %#v", data, fast, std)
		}
	})
}

func BenchmarkDecodeArgs(b *testing.B) {
	data := []byte(`{"text": "Looks good overall, but the error path in the parser drops the position; please keep file:line:col in every diagnostic and add a test.", "max_words": 12, "tags": ["parser", "errors"], "strict": true}`)
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			parseJSON(data)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			stdDecode(data)
		}
	})
}
