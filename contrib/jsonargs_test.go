package contrib

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
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
		fast, _, err := parseJSON([]byte(in), goForm, nil)
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
		if _, _, err := parseJSON([]byte(in), goForm, nil); err == nil {
			t.Errorf("%q: fast path accepted it", in)
		}
	}
}

func FuzzDC6_FastDecoder(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5, "x\n", null, true]}`, `"\u00e9"`, `[{"k": {}}]`, `-1e5`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, _, err := parseJSON(data, goForm, nil)
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
			parseJSON(data, goForm, nil)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			stdDecode(data)
		}
	})
}

// DC4: arguments that are well-formed JSON but cannot reach a tool intact —
// invalid UTF-8 inside a string, a number no float64 holds, nesting deeper
// than MaxNesting — are refused with invalid_arguments naming the path, on
// the fast decoder's path and on encoding/json's alike.
func TestDC4_BadInputRefusedWithPath(t *testing.T) {
	deep := strings.Repeat("[", MaxNesting+1) + strings.Repeat("]", MaxNesting+1)
	for in, want := range map[string]string{
		"{\"s\": \"\xff\xfe\"}":                          "/s: invalid UTF-8 in a string",
		"{\"l\": [1, \"ok\", \"a\\n\xff\"]}":             "/l/2: invalid UTF-8 in a string",
		"{\"a/b\": {\"\xff\": 1}}":                       "/a~1b: invalid UTF-8 in a key",
		`{"n": 1e400}`:                                   "/n: number 1e400 does not fit a float64",
		`{"n": [-1.5E+999]}`:                             "/n/0: number -1.5E+999 does not fit a float64",
		`{"d": ` + deep + `}`:                            "/d/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0: nested more than 100 levels deep",
		"{\"lone\": \"\\ud83d\", \"s\": \"\xff\"}":       "invalid UTF-8 in a string at byte 25",
		"{\"lone\": \"\\ud83d\", \"n\": {\"x\": 2e308}}": "/n/x: number 2e308 does not fit a float64",
	} {
		_, res, ok := decodeArgs(nil, []byte(in), nil)
		if ok || res.Err == nil || res.Err.Code != ErrInvalidArguments || res.Err.Message != want {
			t.Errorf("%q: ok=%v %+v\nwant invalid_arguments: %s", in, ok, res.Err, want)
		}
	}
	for _, in := range []string{`{"n": 1e308, "u": 1e-400, "big": 123456789012345678901234567890}`, `{"s": "fіne ü"}`} {
		if _, res, ok := decodeArgs(nil, []byte(in), nil); !ok {
			t.Errorf("%s: refused: %+v", in, res.Err)
		}
	}
}
