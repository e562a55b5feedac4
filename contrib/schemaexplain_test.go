package contrib

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// explainCases pairs schemas with instances, valid and not, over every
// keyword the validator (google/jsonschema-go) knows. Each schema is run
// against each of its instances; a case tests agreement, not which side
// wins.
var explainCases = []struct {
	schema    string
	instances []string
}{
	{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, []string{`{}`, `{"a":"x"}`, `{"a":1}`, `[]`, `null`}},
	{`{"type":"integer"}`, []string{`1`, `1.0`, `1.5`, `"1"`, `1e400`, `-0`, `9007199254740993`}},
	{`{"type":["integer","null"]}`, []string{`null`, `2`, `2.5`, `true`}},
	{`{"type":"number","minimum":1,"maximum":9007199254740992}`, []string{`0`, `1`, `9007199254740992`, `9007199254740993`, `1e300`}},
	{`{"exclusiveMinimum":0,"exclusiveMaximum":1}`, []string{`0`, `0.5`, `1`, `"s"`}},
	{`{"multipleOf":0.1}`, []string{`0.3`, `1`, `0.35`}},
	{`{"multipleOf":3}`, []string{`9`, `10`, `"9"`}},
	{`{"minLength":2,"maxLength":3,"pattern":"^a"}`, []string{`"a"`, `"ab"`, `"abcd"`, `"ba"`, `"äb"`, `5`}},
	{`{"enum":[1,"a",null,[1],{"x":1}]}`, []string{`1`, `1.0`, `"a"`, `null`, `[1]`, `[1.0]`, `{"x":1}`, `{"x":2}`, `2`, `true`}},
	{`{"const":{"a":[1,2]}}`, []string{`{"a":[1,2]}`, `{"a":[2,1]}`, `{"a":[1,2],"b":1}`}},
	{`{"const":null}`, []string{`null`, `0`, `false`}},
	{`{"anyOf":[{"type":"string"},{"minimum":5}]}`, []string{`"x"`, `6`, `4`, `true`}},
	{`{"oneOf":[{"type":"integer"},{"minimum":5}]}`, []string{`1`, `6`, `5.5`, `2.5`}},
	{`{"allOf":[{"type":"number"},{"maximum":3}]}`, []string{`1`, `4`, `"a"`}},
	{`{"not":{"type":"string"}}`, []string{`1`, `"x"`}},
	{`{"if":{"type":"integer"},"then":{"minimum":3},"else":{"type":"string"}}`, []string{`4`, `2`, `"s"`, `2.5`}},
	{`{"if":{"minimum":3},"then":{"multipleOf":2}}`, []string{`4`, `5`, `1`}},
	{`{"if":{"minimum":3},"else":{"multipleOf":2}}`, []string{`5`, `1`, `2`}},
	{`{"then":{"type":"string"}}`, []string{`1`}},
	{`{"$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`, []string{`{"a":1}`, `{"a":"x"}`}},
	{`{"$defs":{"n":{"$anchor":"num","type":"integer"}},"items":{"$ref":"#num"}}`, []string{`[1,2]`, `[1,"x"]`}},
	{`{"$defs":{"a~b/c":{"type":"integer"}},"items":{"$ref":"#/$defs/a~0b~1c"}}`, []string{`[1]`, `["x"]`}},
	{`{"$defs":{"a b":{"type":"integer"}},"items":{"$ref":"#/$defs/a%20b"}}`, []string{`[1]`, `["x"]`}},
	{`{"$ref":"#/$defs/s","$defs":{"s":{"type":"string"}},"minLength":2}`, []string{`"ab"`, `"a"`, `1`}},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/s","definitions":{"s":{"type":"string"}},"minLength":2}`, []string{`"ab"`, `"a"`, `1`}},
	{`{"type":"object","properties":{"next":{"$ref":"#"},"v":{"type":"integer"}}}`, []string{`{"next":{"next":{"v":1}}}`, `{"next":{"next":{"v":"x"}}}`}},
	{`{"$id":"https://example.com/root.json","$defs":{"s":{"$id":"s.json","type":"string"}},"items":{"$ref":"s.json"}}`, []string{`["a"]`, `[1]`}},
	{`{"$defs":{"inner":{"$id":"inner.json","$defs":{"n":{"type":"integer"}},"$ref":"#/$defs/n"}},"$ref":"inner.json"}`, []string{`1`, `"x"`}},
	{`{"$dynamicAnchor":"node","type":"object","properties":{"kids":{"type":"array","items":{"$dynamicRef":"#node"}},"v":{"type":"integer"}}}`, []string{`{"kids":[{"v":1}]}`, `{"kids":[{"v":"x"}]}`}},
	{`{"type":"object","dependentRequired":{"a":["b","c"]}}`, []string{`{"a":1,"b":1,"c":1}`, `{"a":1,"b":1}`, `{"b":1}`}},
	{`{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}`, []string{`{"a":1,"b":1}`, `{"a":1}`, `{"b":1}`}},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"],"c":{"required":["d"]}}}`, []string{`{"a":1,"b":1}`, `{"a":1}`, `{"c":1}`, `{"c":1,"d":1}`}},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","dependentRequired":{"a":["b"]},"dependentSchemas":{"c":false}}`, []string{`{"a":1}`, `{"c":1}`}},
	{`{"dependencies":{"a":["b"]}}`, []string{`{"a":1}`}},
	{`{"properties":{"a":true},"unevaluatedProperties":false}`, []string{`{"a":1}`, `{"a":1,"b":2}`, `{}`}},
	{`{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}`, []string{`{"a":1}`, `{"a":1,"b":2}`}},
	{`{"anyOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":true}}],"unevaluatedProperties":false}`, []string{`{"a":"x"}`, `{"a":1}`, `{"b":1}`, `{"a":1,"b":1}`, `{"c":1}`}},
	{`{"oneOf":[{"properties":{"a":true},"required":["a"]},{"properties":{"b":true},"required":["b"]}],"unevaluatedProperties":false}`, []string{`{"a":1}`, `{"b":1}`, `{"a":1,"c":1}`, `{"a":1,"b":1}`}},
	{`{"if":{"properties":{"kind":{"const":"x"}},"required":["kind"]},"then":{"properties":{"x":true}},"else":{"properties":{"y":true}},"unevaluatedProperties":false}`, []string{`{"kind":"x","x":1}`, `{"kind":"x","y":1}`, `{"kind":"z","y":1}`, `{"y":1}`, `{"kind":"z"}`}},
	{`{"dependentSchemas":{"a":{"properties":{"b":true}}},"properties":{"a":true},"unevaluatedProperties":false}`, []string{`{"a":1,"b":1}`, `{"b":1}`}},
	{`{"$ref":"#/$defs/base","$defs":{"base":{"properties":{"a":true}}},"unevaluatedProperties":{"type":"integer"}}`, []string{`{"a":"x","b":1}`, `{"a":"x","b":"y"}`}},
	{`{"patternProperties":{"^x":true},"unevaluatedProperties":false}`, []string{`{"xa":1}`, `{"ya":1}`}},
	{`{"additionalProperties":true,"unevaluatedProperties":false}`, []string{`{"q":1}`}},
	{`{"not":{"properties":{"a":{"type":"string"}}},"unevaluatedProperties":false}`, []string{`{"a":1}`}},
	{`{"prefixItems":[{"type":"string"}],"unevaluatedItems":false}`, []string{`["a"]`, `["a",1]`, `[1]`, `[]`}},
	{`{"allOf":[{"prefixItems":[true,true]}],"unevaluatedItems":{"type":"string"}}`, []string{`[1,2,"x"]`, `[1,2,3]`}},
	{`{"contains":{"type":"string"},"unevaluatedItems":false}`, []string{`["a","b"]`, `["a",1]`, `[1]`}},
	{`{"items":true,"unevaluatedItems":false}`, []string{`[1,2]`}},
	{`{"anyOf":[{"prefixItems":[{"type":"string"}]},{"prefixItems":[true,true]}],"unevaluatedItems":false}`, []string{`["a"]`, `[1,2]`, `["a",2]`, `["a",2,3]`, `[1]`}},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"unevaluatedItems":false}`, []string{`["a"]`, `["a",1]`}},
	{`{"prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`, []string{`["a",1]`, `["a"]`, `["a",1,2]`, `[1]`}},
	{`{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, []string{`["a",1,2]`, `["a","b"]`}},
	{`{"items":[{"type":"string"}],"additionalItems":false}`, []string{`["a"]`, `["a",1]`, `[1]`}},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}`, []string{`["a"]`, `["a",1]`, `[1]`}},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","items":{"type":"string"},"additionalItems":false}`, []string{`["a","b"]`, `[1]`}},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","prefixItems":[{"type":"string"}]}`, []string{`[1]`}},
	{`{"contains":{"type":"string"},"minContains":2,"maxContains":3}`, []string{`["a"]`, `["a","b"]`, `["a","b","c","d"]`, `[1,2]`}},
	{`{"contains":{"type":"string"},"minContains":0}`, []string{`[1]`, `[]`}},
	{`{"maxContains":0}`, []string{`["a"]`}},
	{`{"contains":false}`, []string{`[]`, `[1]`}},
	{`{"minItems":1,"maxItems":2,"uniqueItems":true}`, []string{`[]`, `[1]`, `[1,1.0]`, `[1,2,3]`, `[{"a":1},{"a":1.0}]`, `[[1],[1]]`}},
	{`{"minProperties":1,"maxProperties":1}`, []string{`{}`, `{"a":1}`, `{"a":1,"b":2}`}},
	{`{"propertyNames":{"pattern":"^[a-z]+$","maxLength":3}}`, []string{`{"ab":1}`, `{"Ab":1}`, `{"abcd":1}`}},
	{`{"properties":{"a":{"type":"integer"}},"patternProperties":{"^a":{"minimum":3},"b$":{"type":"string"}},"additionalProperties":{"type":"boolean"}}`,
		[]string{`{"a":4}`, `{"a":2}`, `{"ab":4}`, `{"ab":"s"}`, `{"b":"s"}`, `{"z":true}`, `{"z":1}`}},
	{`{"additionalProperties":false,"properties":{"a":true}}`, []string{`{"a":1}`, `{"b":1}`}},
	{`{"format":"email","contentEncoding":"base64","title":"t","deprecated":true,"readOnly":true}`, []string{`"not an email"`, `"a@b.c"`, `1`}},
	{`{"type":"string","format":"date-time"}`, []string{`"nope"`}},
	{`true`, []string{`1`, `null`}},
	{`false`, []string{`1`, `null`}},
	{`{"properties":{"a":false}}`, []string{`{"a":1}`, `{}`}},
	{`{"items":false}`, []string{`[]`, `[1]`}},
	{`{"not":true}`, []string{`1`}},
	{`{"not":{}}`, []string{`1`}},
	{`{"anyOf":[false,{"type":"string"}]}`, []string{`"a"`, `1`}},
	{`{"required":["a"]}`, []string{`{"a":null}`, `{}`, `1`}},
	{`{"type":"object","required":["a","b"],"properties":{"a":{"type":"string"}},"additionalProperties":false}`, []string{`{}`, `{"a":1,"b":2,"c":3}`, `{"a":"x","b":1}`}},
	{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"number"}}}`, []string{`{"n":1}`, `{"n":"1"}`}},
}

// TestReview_ExplanationAgreesWithValidator: the explanation of a refusal
// is ours, the refusal google/jsonschema-go's; over every keyword the two
// agree: the validator refuses exactly when the explanation names at
// least one place. (A disagreement would either explain a value that was
// accepted, or fall back to the validator's words where ours were due.)
func TestReview_ExplanationAgreesWithValidator(t *testing.T) {
	for _, c := range explainCases {
		for _, in := range c.instances {
			if msg := explainDisagreement(c.schema, in, true); msg != "" {
				t.Error(msg)
			}
		}
	}
}

// FuzzExplanationAgreesWithValidator runs schema × instance pairs, seeded
// with explainCases, through the validator and the explanation: a refusal
// has an explanation, an accepted value none, and neither panics.
func FuzzExplanationAgreesWithValidator(f *testing.F) {
	for _, c := range explainCases {
		for _, in := range c.instances {
			f.Add(c.schema, in)
		}
	}
	f.Fuzz(func(t *testing.T, schema, instance string) {
		if msg := explainDisagreement(schema, instance, false); msg != "" {
			t.Error(msg)
		}
	})
}

// explainDisagreement returns what is wrong with the pair, or "". A
// schema that does not compile is skipped, unless strict (the table's
// schemas all compile).
func explainDisagreement(schema, instance string, strict bool) string {
	sch, err := compileSchema(json.RawMessage(schema))
	if err != nil {
		if strict {
			return fmt.Sprintf("schema %s does not compile: %v", schema, err)
		}
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(instance)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		if strict {
			return fmt.Sprintf("instance %s is not JSON", instance)
		}
		return ""
	}
	v, _ = goNumbers(v)
	refused := sch.resolved.Validate(v)
	x := explainValue(sch.doc, sch.draft7, v)
	switch {
	case refused != nil && len(x.out) == 0:
		return fmt.Sprintf("schema %s, value %s: refused (%v) with no explanation", schema, instance, refused)
	case refused == nil && len(x.out) > 0:
		return fmt.Sprintf("schema %s, value %s: accepted, yet explained %q", schema, instance, x.out)
	}
	return ""
}

// TestReview_EndlessRefIsRefused: a $ref that comes back to its own schema
// without going into the value made the validator recurse until the stack
// ran out, a fatal error no recover catches: one plugin's parameters took
// the host down at their first call. Such a schema is refused when it is
// compiled, at the $ref; a $ref that goes into the value stays allowed.
func TestReview_EndlessRefIsRefused(t *testing.T) {
	for schema, want := range map[string]string{
		`{"$ref":"#"}`: `not a valid JSON Schema: /$ref: comes back to the schema at / without going into the value; validating would never end`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#"}`:                 `/$ref: comes back to the schema at /`,
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`: `/$defs/b/$ref: comes back to the schema at /$defs/a`,
		`{"type":"object","anyOf":[{"type":"string"},{"$ref":"#"}]}`:                       `/anyOf/1/$ref: comes back to the schema at /`,
		`{"properties":{"a":{"not":{"$ref":"#/properties/a"}}}}`:                           `/properties/a/not/$ref: comes back to the schema at /properties/a`,
		`{"$defs":{"":{"$id":"inner.json","$ref":"#"}},"$ref":"inner.json"}`:               `/$defs//$ref: comes back to the schema at /$defs/`,
		`{"$defs":{"n":{"$anchor":"n","if":{"$ref":"#n"}}},"$ref":"#n"}`:                   `/$defs/n/if/$ref: comes back to the schema at /$defs/n`,
		`{"dependentSchemas":{"a":{"$ref":"#"}}}`:                                          `/dependentSchemas/a/$ref: comes back to the schema at /`,
	} {
		_, err := CompileSchema(json.RawMessage(schema))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want it refused with %q", schema, err, want)
		}
	}
	for _, schema := range []string{
		`{"type":"object","properties":{"next":{"$ref":"#"}}}`,
		`{"items":{"$ref":"#"},"additionalProperties":{"$ref":"#"}}`,
		`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"type":"string"}},"$ref":"#/$defs/a"}`,
		`{"dependencies":{"a":{"$ref":"#"}}}`,
	} {
		sch, err := CompileSchema(json.RawMessage(schema))
		if err != nil {
			t.Errorf("%s: %v", schema, err)
			continue
		}
		_ = sch.Validate(map[string]any{"a": 1, "next": map[string]any{"next": map[string]any{}}})
	}
}

// TestReview_KeywordInAnotherCaseIsRefused: the validator matched "Const"
// or "TYPE" as "const" and "type" (encoding/json ignores case), where the
// specification and the explanation read them as annotations: such a key
// is refused at compile time, with the keyword it resembles.
func TestReview_KeywordInAnotherCaseIsRefused(t *testing.T) {
	for schema, want := range map[string]string{
		`{"Const":{"":[100]}}`:                   `not a valid JSON Schema: /Const: keywords are case-sensitive (did you mean "const"?)`,
		`{"properties":{"a":{"TYPE":"string"}}}`: `/properties/a/TYPE: keywords are case-sensitive (did you mean "type"?)`,
		`{"$Schema":"x"}`:                        `/$Schema: keywords are case-sensitive (did you mean "$schema"?)`,
	} {
		_, err := CompileSchema(json.RawMessage(schema))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want it refused with %q", schema, err, want)
		}
	}
	if _, err := CompileSchema(json.RawMessage(`{"properties":{"Type":{"type":"string"}},"required":["Type"]}`)); err != nil {
		t.Errorf("a property named Type: %v", err)
	}
}
