package contrib

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestReview_SchemaProblemCarriesItsPointer: a refused schema's problems
// carry their JSON Pointer as a field, and a tool's ToolSchemaInvalid
// carries the first one's (Diagnostic.Pointer), which check and the
// running host place the note by instead of reading it back out of the
// message. The message stays as it was. An output_schema's note carries
// none: its pointer is not into the parameters the note is placed by.
func TestReview_SchemaProblemCarriesItsPointer(t *testing.T) {
	_, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"count":{"type":"integr"},"n":{"minimum":"one"}}}`))
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("err = %#v, want a *SchemaError", err)
	}
	want := []SchemaProblem{
		{"/properties/count/type", `"integr" is not a JSON Schema type (array, boolean, integer, null, number, object, string)`},
		{"/properties/n/minimum", "got string, want number"},
	}
	if len(se.Problems) != 2 || se.Problems[0] != want[0] || se.Problems[1] != want[1] {
		t.Errorf("problems = %+v, want %+v", se.Problems, want)
	}
	if msg := err.Error(); msg != `not a valid JSON Schema: /properties/count/type: "integr" is not a JSON Schema type (array, boolean, integer, null, number, object, string); /properties/n/minimum: got string, want number` {
		t.Errorf("message = %s", msg)
	}

	st := NewStaging("acme", Rules{})
	bad := okTool("bad")
	bad.Parameters = json.RawMessage(`{"properties":{"a":{"maxLength":-1}}}`)
	st.AddTool(bad)
	out := okTool("out")
	out.OutputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"maxLength":-1}}}`)
	st.AddTool(out)
	ds := st.Set().Diagnostics
	if len(ds) != 2 || ds[0].Code != ToolSchemaInvalid || ds[1].Code != ToolSchemaInvalid {
		t.Fatalf("diagnostics = %+v", ds)
	}
	if ds[0].Pointer != "/properties/a/maxLength" {
		t.Errorf("parameters' note: Pointer = %q, want /properties/a/maxLength", ds[0].Pointer)
	}
	if ds[1].Pointer != "" {
		t.Errorf("output_schema's note: Pointer = %q, want none", ds[1].Pointer)
	}
	var back Diagnostic // a worker's note reaches the host as JSON
	data, _ := json.Marshal(ds[0])
	if err := json.Unmarshal(data, &back); err != nil || back.Pointer != ds[0].Pointer {
		t.Errorf("through JSON: %+v, %v", back, err)
	}
}
