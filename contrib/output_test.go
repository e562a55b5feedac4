package contrib

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestToolOutputSchema: a tool's output_schema is advertised in its
// projection, and every result is held to it: a valid structured value
// passes, text or a value that breaks it is invalid_output. A schema that
// does not describe an object leaves the tool out.
func TestToolOutputSchema(t *testing.T) {
	out := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	answer := func(r Result) ToolFunc { return func(context.Context, any) Result { return r } }
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g1", 0, SourceDev, stage(t, "acme",
		Tool{Name: "good", Catalogs: Work, OutputSchema: out, Run: answer(Result{Data: json.RawMessage(`{"n":1}`)})},
		Tool{Name: "bad", Catalogs: Work, OutputSchema: out, Run: answer(Result{Data: json.RawMessage(`{"n":"one"}`)})},
		Tool{Name: "text", Catalogs: Work, OutputSchema: out, Run: answer(Result{Text: "n is 1"})},
		Tool{Name: "plain", Catalogs: Work, Run: answer(Result{Text: "free"})},
	))
	snap := r.Tools(Work)
	if got := snap.List()[0].OutputSchema; string(got) != string(out) {
		t.Errorf("good's projection has output schema %s", got)
	}
	if res := snap.Invoke(context.Background(), "good", nil); !res.OK() {
		t.Errorf("good: %+v", res.Err)
	}
	for _, name := range []string{"bad", "text"} {
		if res := snap.Invoke(context.Background(), name, nil); res.Err == nil || res.Err.Code != ErrInvalidOutput {
			t.Errorf("%s = %+v, want invalid_output", name, res)
		}
	}
	if res := snap.Invoke(context.Background(), "plain", nil); res.Text != "free" {
		t.Errorf("plain = %+v", res)
	}

	st := NewStaging("acme", Rules{})
	st.AddTool(Tool{Name: "arr", Catalogs: Work, OutputSchema: json.RawMessage(`{"type":"array"}`), Run: answer(Result{})})
	if d := st.Set().Diagnostics; len(d) != 1 || d[0].Code != ToolSchemaInvalid || !strings.Contains(d[0].Message, "output_schema") {
		t.Errorf("an array output schema: %v, want ToolSchemaInvalid about output_schema", d)
	}
}
