package builtins

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// viaGo is what a Starlark tool received before issue 26 point 4, and what
// Dispatch's path still gives it: encoding/json with UseNumber, then
// FromJSON.
func viaGo(data []byte) (starlark.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return FromJSON(v), nil
}

// sameValue reports whether a and b are the same Starlark value: equal,
// and the same types and dict key order all the way down (which repr shows,
// and equality does not: 1 == 1.0).
func sameValue(a, b starlark.Value) bool {
	eq, err := starlark.Equal(a, b)
	return err == nil && eq && a.String() == b.String()
}

// argsShapes are JSON texts of every shape arguments take.
var argsShapes = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `7`, `-12`, `1.5e-3`, `-12E+4`, `1.0`, `1e2`, `"x"`, `""`,
	`9223372036854775807`, `9223372036854775808`, `-123456789012345678901234567890`, `1e308`, `1e-400`,
	`{"text": "hello"}`, `{"b": 1, "a": 2, "c": {"z": [], "y": {}}}`, `{"dup": 1, "dup": 2}`, `{"z": 1, "a": 2, "z": 3}`,
	`{"text": "hello  world", "n": 3, "f": 1.25, "b": true, "z": null, "l": [1, "a", {"k": []}]}`,
	`{"esc": "a\"b\\c\/d\b\f\n\r\t", "u": "\u00e9\u4e2d", "pair": "\ud83d\ude00", "ü": "ß"}`,
	`{"lone": "\ud83d", "x": 1}`, "  {\"ws\" :\t[ 1 , 2 ]\n}  ", `[[[[1]]], {"a": [{"b": null}]}]`,
	`{"` + strings.Repeat("k", 5000) + `": "` + strings.Repeat("v", 5000) + `"}`,
}

// TestH26_4_StarlarkArgsAreFromJSONs: a Starlark tool's arguments, decoded
// straight into Starlark values (starlarkArgs), are exactly what FromJSON
// makes of encoding/json's decoding — types, values and dict key order —
// for every shape, the fast parser's and the ones it leaves to
// encoding/json alike.
func TestH26_4_StarlarkArgsAreFromJSONs(t *testing.T) {
	for _, in := range argsShapes {
		got, err := contrib.ParseJSON([]byte(in), starlarkArgs)
		if err != nil {
			t.Errorf("%.60s: %v", in, err)
			continue
		}
		want, err := viaGo([]byte(in))
		if err != nil {
			t.Fatalf("%.60s: %v", in, err)
		}
		if v, ok := got.(starlark.Value); !ok || !sameValue(v, want) {
			t.Errorf("%.60s: got %T %.80v, want %.80s", in, got, got, want)
		}
	}
}

// TestH26_4_StarlarkArgsRefusedAlike: arguments the host refuses are
// refused with the same message whichever form they were to be built in.
func TestH26_4_StarlarkArgsRefusedAlike(t *testing.T) {
	deep := strings.Repeat("[", contrib.MaxNesting+1) + strings.Repeat("]", contrib.MaxNesting+1)
	for _, in := range []string{
		"{\"s\": \"\xff\xfe\"}", "{\"l\": [1, \"ok\", \"a\\n\xff\"]}", "{\"a/b\": {\"\xff\": 1}}",
		`{"n": 1e400}`, `{"n": [-1.5E+999]}`, `{"d": ` + deep + `}`,
		"{\"lone\": \"\\ud83d\", \"s\": \"\xff\"}", "{\"lone\": \"\\ud83d\", \"n\": {\"x\": 2e308}}",
		`{"a":1} x`, `{"a":1,}`, `{`, `tru`, `01`,
	} {
		_, goErr := contrib.ParseJSON([]byte(in), nil)
		_, starErr := contrib.ParseJSON([]byte(in), starlarkArgs)
		if goErr == nil || starErr == nil || goErr.Error() != starErr.Error() {
			t.Errorf("%.60q: Go form %v, Starlark values %v", in, goErr, starErr)
		}
	}
}

func FuzzH26_4_StarlarkArgs(f *testing.F) {
	for _, s := range argsShapes {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := contrib.ParseJSON(data, starlarkArgs)
		_, goErr := contrib.ParseJSON(data, nil)
		if (err == nil) != (goErr == nil) || err != nil && err.Error() != goErr.Error() {
			t.Fatalf("%q: Starlark values %v, Go form %v", data, err, goErr)
		}
		if err != nil {
			return
		}
		want, err := viaGo(data)
		if err != nil {
			t.Fatalf("%q: accepted what encoding/json refuses: %v", data, err)
		}
		if !sameValue(got.(starlark.Value), want) {
			t.Fatalf("%q: got %v, want %v", data, got, want)
		}
	})
}
