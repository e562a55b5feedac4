package contrib

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// formObject is what testForm builds for an object: a type of its own, so
// a test sees which form a tool received.
type formObject map[string]any

// testForm is a JSONBuilder other than the Go form: objects are
// formObject, everything else as in the Go form.
type testForm struct{ goValues }

func (testForm) Object(ms []JSONMember) any {
	return formObject(goValues{}.Object(ms).(map[string]any))
}

func (testForm) FromGo(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := formObject{}
		for k, e := range v {
			out[k] = testForm{}.FromGo(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = testForm{}.FromGo(e)
		}
		return out
	}
	return v
}

// sayArgs is a Run whose result says what it received.
func sayArgs(_ context.Context, args any) Result {
	return Result{Text: fmt.Sprintf("%T %v", args, args)}
}

// formTool is a tool taking its arguments in form (nil: the Go form), with
// schema, whose result says what it received.
func formTool(name string, form JSONBuilder, schema string) Tool {
	t := okTool(name)
	if schema != "" {
		t.Parameters = json.RawMessage(schema)
	}
	t.Run = WithArgsForm(sayArgs, form)
	return t
}

// TestH26_4_ReplacedRunBringsItsForm: a Tool is a struct that gets copied,
// and whoever replaces its Run (a worker stub, a remote executor's call, a
// wrapper) replaces the form with it: a copy of a tool taking another form
// whose Run is replaced by a Go-form function receives the Go form — with
// one assignment, nothing else to reset — and a Run replaced by one taking
// another form receives that form.
func TestH26_4_ReplacedRunBringsItsForm(t *testing.T) {
	orig := formTool("orig", testForm{}, `{"type":"object","properties":{"n":{"type":"integer"}}}`)
	gocopy := orig
	gocopy.Name = "gocopy"
	gocopy.Run = ToolFunc(sayArgs)
	formcopy := formTool("formcopy", nil, `{"type":"object","properties":{"n":{"type":"integer"}}}`)
	formcopy.Run = orig.Run
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g0", 0, SourceDev, stage(t, "acme", orig, gocopy, formcopy))
	snap := r.Tools(Work)
	for tool, want := range map[string]string{
		"orig": "contrib.formObject map[n:2]", "gocopy": "map[string]interface {} map[n:2]",
		"formcopy": "contrib.formObject map[n:2]",
	} {
		if res := snap.Invoke(context.Background(), tool, json.RawMessage(`{"n":2}`)); res.Text != want {
			t.Errorf("Invoke %s: %+v, want %q", tool, res, want)
		}
	}
	if ArgsFormOf(ToolFunc(sayArgs)) != nil || ArgsFormOf(orig.Run) != (testForm{}) {
		t.Errorf("ArgsFormOf: %v for a ToolFunc, %v for a form runner", ArgsFormOf(ToolFunc(sayArgs)), ArgsFormOf(orig.Run))
	}
}

// TestH26_4_ToolTakesArgumentsInItsForm: Invoke decodes the arguments
// straight into the tool's ArgsForm — with a flat schema, a schema only the
// validator reads, and none — while Check (which Dispatch's classifiers
// read) and a tool without a form keep the Go form, and InvokeChecked
// converts Check's value to the tool's form.
func TestH26_4_ToolTakesArgumentsInItsForm(t *testing.T) {
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g0", 0, SourceDev, stage(t, "acme",
		formTool("flat", testForm{}, `{"type":"object","properties":{"n":{"type":"integer"}}}`),
		formTool("rich", testForm{}, `{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`),
		formTool("bare", testForm{}, ""),
		formTool("gotool", nil, `{"type":"object","properties":{"n":{"type":"integer"}}}`)))
	snap := r.Tools(Work)
	ctx := context.Background()
	for tool, want := range map[string]string{
		"flat": "contrib.formObject map[n:2]", "rich": "contrib.formObject map[n:2]",
		"bare": "contrib.formObject map[n:2]", "gotool": "map[string]interface {} map[n:2]",
	} {
		if res := snap.Invoke(ctx, tool, json.RawMessage(`{"n":2}`)); res.Text != want {
			t.Errorf("Invoke %s: %+v, want %q", tool, res, want)
		}
		v, res, ok := snap.Check(tool, json.RawMessage(`{"n":2}`))
		if _, isGo := v.(map[string]any); !ok || !isGo {
			t.Errorf("Check %s: %T %+v, want the Go form", tool, v, res)
		}
		if res := snap.InvokeChecked(ctx, tool, v); res.Text != want {
			t.Errorf("InvokeChecked %s: %+v, want %q", tool, res, want)
		}
	}
	// A refusal is the same whichever form the tool takes.
	for _, tool := range []string{"flat", "gotool"} {
		res := snap.Invoke(ctx, tool, json.RawMessage(`{"n":"2"}`))
		if res.Err == nil || res.Err.Code != ErrInvalidArguments || res.Err.Message != "/n: got string, want integer" {
			t.Errorf("Invoke %s with a string: %+v", tool, res.Err)
		}
	}
}

// TestH26_4_ReplacedGenerationGetsItsOwnForm: a snapshot taken before a
// reload follows the tool to its new generation (AT2); the new generation's
// schema decides and its tool gets the arguments in its own form, whether
// they came as JSON (Invoke) or checked (InvokeChecked), and whether the
// schema changed or not (schemas are shared by their text).
func TestH26_4_ReplacedGenerationGetsItsOwnForm(t *testing.T) {
	const object, integer = `{"type":"object"}`, `{"type":"object","properties":{"n":{"type":"integer"}}}`
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g0", 0, SourceDev, stage(t, "acme", formTool("t", testForm{}, object)))
	snap := r.Tools(Work)
	good, _, _ := snap.Check("t", json.RawMessage(`{"n":2}`))
	bad, _, _ := snap.Check("t", json.RawMessage(`{"n":"x"}`))
	ctx := context.Background()
	for i, next := range []struct {
		form   JSONBuilder
		schema string
		want   string
	}{
		// The same schema, the Go form (say, the plugin now runs in a worker).
		{nil, object, "map[string]interface {} map[n:2]"},
		// Another schema, which n:"x" breaks.
		{nil, integer, "map[string]interface {} map[n:2]"},
		{testForm{}, integer, "contrib.formObject map[n:2]"},
	} {
		publish(r, "acme", fmt.Sprintf("g%d", i+1), 0, SourceDev, stage(t, "acme", formTool("t", next.form, next.schema)))
		if res := snap.Invoke(ctx, "t", json.RawMessage(`{"n":2}`)); res.Text != next.want {
			t.Errorf("reload %d: Invoke: %+v, want %q", i+1, res, next.want)
		}
		if res := snap.InvokeChecked(ctx, "t", good); res.Text != next.want {
			t.Errorf("reload %d: InvokeChecked: %+v, want %q", i+1, res, next.want)
		}
		refused := func(res Result) bool { return res.Err != nil && res.Err.Code == ErrInvalidArguments }
		if got := snap.Invoke(ctx, "t", json.RawMessage(`{"n":"x"}`)); refused(got) != (next.schema == integer) {
			t.Errorf("reload %d: Invoke with n:\"x\": %+v", i+1, got)
		}
		if got := snap.InvokeChecked(ctx, "t", bad); refused(got) != (next.schema == integer) {
			t.Errorf("reload %d: InvokeChecked with n:\"x\": %+v", i+1, got)
		}
	}
}

// TestH26_4_EmptyArgumentsFollowAReload: arguments left empty mean {} on
// every path, also when the call follows its tool to a new generation whose
// form or schema differs (they are decoded again from their JSON text, which
// for empty arguments is {}).
func TestH26_4_EmptyArgumentsFollowAReload(t *testing.T) {
	const object = `{"type":"object"}`
	r := NewRegistry(RegistryOptions{})
	publish(r, "acme", "g0", 0, SourceDev, stage(t, "acme", formTool("t", testForm{}, object)))
	snap := r.Tools(Work)
	ctx := context.Background()
	for i, next := range []struct {
		form   JSONBuilder
		schema string
		want   string
	}{
		{nil, object, "map[string]interface {} map[]"},
		{testForm{}, `{"type":"object","properties":{"n":{"type":"integer"}}}`, "contrib.formObject map[]"},
	} {
		publish(r, "acme", fmt.Sprintf("g%d", i+1), 0, SourceDev, stage(t, "acme", formTool("t", next.form, next.schema)))
		for _, args := range []json.RawMessage{nil, json.RawMessage(" null ")} {
			if res := snap.Invoke(ctx, "t", args); res.Text != next.want {
				t.Errorf("reload %d: Invoke with %q: %+v, want %q", i+1, args, res, next.want)
			}
		}
	}
}
