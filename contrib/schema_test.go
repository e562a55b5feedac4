package contrib

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CC1, DC23: a tool's parameters are compiled from the plugin's value alone.
// A $ref outside the schema is refused — it never reads a file (absolute, or
// relative to the host's working directory) or the network — and messages
// never carry the host's paths.
func TestCC1_SchemaRefStaysInsideTheSchema(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"type":"object"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, ref := range []string{"file://" + filepath.ToSlash(secret), "secret.json", "https://example.invalid/s.json"} {
		raw, _ := json.Marshal(map[string]any{"$ref": ref})
		_, err := CompileSchema(raw)
		if err == nil {
			t.Errorf("$ref %q compiled; want it refused", ref)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "outside the schema") || strings.Contains(msg, "plugin:///") {
			t.Errorf("$ref %q: error %q; want it named as outside the schema, without the internal base URL", ref, msg)
		}
	}
	inner := `{"$defs":{"n":{"type":"integer"}},"type":"object","properties":{"n":{"$ref":"#/$defs/n"}}}`
	sch, err := CompileSchema(json.RawMessage(inner))
	if err != nil {
		t.Fatalf("internal $ref: %v", err)
	}
	if err := sch.Validate(map[string]any{"n": "x"}); err == nil {
		t.Error("internal $ref does not validate")
	}
	draft7 := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`
	if _, err := CompileSchema(json.RawMessage(draft7)); err != nil {
		t.Errorf("a built-in meta-schema is refused: %v", err)
	}
}

// An invalid schema is reported at the failing places of the schema itself,
// not as a meta-schema dump with a file URL.
func TestCC5_InvalidSchemaNamesItsPath(t *testing.T) {
	_, err := CompileSchema(json.RawMessage(`{"properties":{"n":{"minimum":"one"}}}`))
	if err == nil {
		t.Fatal("invalid schema compiled")
	}
	want := "not a valid JSON Schema: /properties/n/minimum: got string, want number"
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

// TestH26_1_SchemaCheckIsOurs: google/jsonschema-go does not check a schema
// against the meta-schema, so the host's own check names each bad place of
// an author's schema, at every level, in a stable order; a $schema other
// than draft 2020-12 or draft-07 is refused at compile time (the validator
// would refuse every call).
func TestH26_1_SchemaCheckIsOurs(t *testing.T) {
	cases := map[string]string{
		`{"type":"nope"}`: `not a valid JSON Schema: /type: "nope" is not a JSON Schema type (array, boolean, integer, null, number, object, string)`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"minLength":-1}}},"required":"a"}`: "not a valid JSON Schema: /properties/a/items/minLength: got -1, want non-negative integer; /required: got string, want array",
		`{"properties":{"s":{"pattern":"("}}}`:                                                          "not a valid JSON Schema: /properties/s/pattern: not a regular expression: error parsing regexp: missing closing ): `(`",
		`{"anyOf":[],"not":3,"$defs":{"x/y":{"enum":1}}}`:                                               "not a valid JSON Schema: /$defs/x~1y/enum: got number, want array; /anyOf: an empty array; want at least one schema; /not: got number, want boolean or object",
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`:                         `not a valid JSON Schema: /$schema: "http://json-schema.org/draft-04/schema#" is not supported; leave "$schema" out (draft 2020-12) or name draft-07`,
		`{"type":["string","string"]}`:                                                                  "not a valid JSON Schema: /type: item 1: want one of array, boolean, integer, null, number, object, string, each once",
		`{"properties":{"n":{"type":"integer","multipleOf":0}}}`:                                        "not a valid JSON Schema: /properties/n/multipleOf: got 0, want a number above 0",
	}
	for raw, want := range cases {
		_, err := CompileSchema(json.RawMessage(raw))
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", raw, err, want)
		}
	}
	for _, ok := range []string{
		`{"type":"object","x-vendor":{"anything":1},"format":"uri"}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`,
		`{"$schema":"http://json-schema.org/draft-07/schema","items":[{"type":"string"}],"dependencies":{"a":["b"],"c":{"type":"object"}}}`,
	} {
		if _, err := CompileSchema(json.RawMessage(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestH26_1_ValidationNamesEveryPath: a refused value is explained at every
// failing place of the value (not the schema), in the words the tests and
// docs pin, and JSON numbers decoded as json.Number validate as numbers.
func TestH26_1_ValidationNamesEveryPath(t *testing.T) {
	schema := `{"type":"object","additionalProperties":false,"required":["name","times"],
		"$defs":{"tag":{"type":"string","enum":["a","b"]}},
		"properties":{
			"name":{"type":"string","minLength":2,"pattern":"^[a-z]+$"},
			"times":{"type":"integer","minimum":1,"maximum":9},
			"tags":{"type":"array","items":{"$ref":"#/$defs/tag"},"maxItems":2,"uniqueItems":true},
			"pick":{"oneOf":[{"type":"string"},{"type":"integer"}]},
			"deep":{"type":"object","properties":{"x":{"type":["number","null"]}}}}}`
	sch, err := CompileSchema(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		`{"times":"3"}`: `/: missing property "name"; /times: got string, want integer`,
		`{"name":"x1","times":0,"extra":1,"more":2}`: `/: additional properties "extra", "more" not allowed; ` +
			`/name: "x1" does not match pattern "^[a-z]+$"; /times: minimum: got 0, want 1`,
		`{"name":"ab","times":3.5,"tags":["a","c","a"]}`:        `/tags: maxItems: got 3, want 2; /tags: items at 0 and 2 are equal; /tags/1: value must be one of "a", "b"; /times: got number, want integer`,
		`{"name":"ab","times":10,"pick":true,"deep":{"x":"s"}}`: `/deep/x: got string, want number or null; /pick: matches none of the schemas of "oneOf"; /times: maximum: got 10, want 9`,
		`[]`: "/: got array, want object",
	}
	for args, want := range cases {
		_, res, ok := decodeArgs(sch, json.RawMessage(args), nil)
		if ok || res.Err == nil || res.Err.Code != ErrInvalidArguments || res.Err.Message != want {
			t.Errorf("%s:\n got ok=%v %+v\nwant %s", args, ok, res.Err, want)
		}
	}
	for _, args := range []string{`{"name":"ab","times":9,"tags":["b"],"pick":3,"deep":{"x":null}}`, `{"name":"ab","times":2.0,"deep":{"x":1e300}}`} {
		if _, res, ok := decodeArgs(sch, json.RawMessage(args), nil); !ok {
			t.Errorf("%s refused: %+v", args, res.Err)
		}
	}
}

// TestH26_5_ReservedNamesFoldCase: the reserved-name lists, now searched
// in place rather than copied into a map per plugin, still match whatever
// the case on either side, and only whole names.
func TestH26_5_ReservedNamesFoldCase(t *testing.T) {
	rules := []string{"read", "Bash", "web-fetch"}
	s := newNameSet(rules)
	for name, want := range map[string]bool{"READ": true, "read": true, "bash": true, "BASH": true, "Web-Fetch": true, "rea": false, "reads": false, "": false} {
		if got := s.has(name); got != want {
			t.Errorf("has(%q) = %v, want %v", name, got, want)
		}
	}
	if rules[1] != "Bash" {
		t.Error("the host's list was changed")
	}
}

// TestSchema_ViolationsInDocumentOrder proves the violations of one value
// come in document order whatever order the explainer found them in: "/"
// first, a path before the paths under it, array indices by number; names
// in double quotes; the message does not repeat the code.
func TestSchema_ViolationsInDocumentOrder(t *testing.T) {
	sch, err := CompileSchema(json.RawMessage(`{"type":"object","required":["z"],"additionalProperties":false,
		"properties":{"a":{"type":"array","items":{"type":"string"}},"b":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, res, ok := decodeArgs(sch, json.RawMessage(`{"b":1,"a":["x",1,2,3,4,5,6,7,8,9,10,"y"],"q":1}`), nil)
	want := `/: missing property "z"; /: additional properties "q" not allowed; /a/1: got number, want string; /a/2: got number, want string; ` +
		`/a/3: got number, want string; /a/4: got number, want string; /a/5: got number, want string; /a/6: got number, want string; ` +
		`/a/7: got number, want string; /a/8: got number, want string; /a/9: got number, want string; /a/10: got number, want string; /b: got number, want string`
	if ok || res.Err == nil || res.Err.Message != want {
		t.Fatalf("got ok=%v %+v\nwant %s", ok, res.Err, want)
	}
}

// TestEqualJSONNumbersByValue: the explainer's equality (enum, const,
// uniqueItems) compares numbers by value, as JSON Schema says, at every
// depth; the hooks' equality compares them by their text.
func TestEqualJSONNumbersByValue(t *testing.T) {
	one, oneDot := json.Number("1"), json.Number("1.0")
	a := map[string]any{"x": []any{one, "s", nil}}
	b := map[string]any{"x": []any{oneDot, "s", nil}}
	if !equalJSON(a, b) || !equalJSON(one, int64(1)) {
		t.Error("equalJSON: 1 and 1.0 differ")
	}
	if equalJSON(a, map[string]any{"x": []any{one, "t", nil}}) || equalJSON(one, "1") {
		t.Error("equalJSON: different values are equal")
	}
	if jsonEqual(a, b) || !jsonEqual(a, map[string]any{"x": []any{one, "s", nil}}) {
		t.Error("jsonEqual: numbers not compared by their text")
	}
}
