package worker

import (
	"context"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// countingForm is a JSONBuilder that builds the Go form and counts what
// it built.
type countingForm struct{ built *int }

func (f countingForm) Null() any              { *f.built++; return nil }
func (f countingForm) Bool(b bool) any        { *f.built++; return b }
func (f countingForm) String(s string) any    { *f.built++; return s }
func (f countingForm) Number(text string) any { *f.built++; return text }
func (f countingForm) FromGo(v any) any       { *f.built++; return v }
func (f countingForm) Array(elems []any) any  { *f.built++; return append([]any(nil), elems...) }
func (f countingForm) Object(ms []contrib.JSONMember) any {
	*f.built++
	m := map[string]any{}
	for _, kv := range ms {
		m[kv.Key] = kv.Value
	}
	return m
}

// A worker decodes a tool's arguments straight into the tool's own form
// (its Run's ArgsForm), as the host does in process, instead of into Go values
// first (issue 26, point 2); empty arguments stay nil.
func TestH26_2_WorkerDecodesArgumentsInTheToolsForm(t *testing.T) {
	n := 0
	v, err := toolArgs([]byte(`{"text": "hi", "n": 2}`), countingForm{&n})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := v.(map[string]any)
	if !ok || m["text"] != "hi" || m["n"] != "2" || n != 3 {
		t.Fatalf("toolArgs = %#v after %d builds, want the form's map of 2 members (3 builds)", v, n)
	}
	if v, err := toolArgs(nil, countingForm{&n}); v != nil || err != nil {
		t.Fatalf("empty arguments = %#v, %v; want nil", v, err)
	}
}

// A tool call the worker serves reaches the tool's Run in the tool's own
// form: the serving path decodes with the tool's Run's ArgsForm, not only
// toolArgs on its own (issue 26, point 2).
func TestH26_2_WorkerToolRunGetsItsForm(t *testing.T) {
	n := 0
	var got any
	tool := contrib.Tool{Name: "t", Run: contrib.WithArgsForm(func(_ context.Context, args any) contrib.Result {
		got = args
		return contrib.Result{Text: "ok"}
	}, countingForm{&n})}
	s := &server{svc: &remoteServices{}, set: &contrib.Set{Tools: []contrib.Tool{tool}}}
	body := wire.AppendToolInvoke(nil, wire.Invoke{Args: []byte(`{"n": 2}`)})
	if _, err := s.invoke(context.Background(), wire.MethodTool, body); err != nil {
		t.Fatal(err)
	}
	// The form gives a number as its text; the Go form as a json.Number.
	if m, ok := got.(map[string]any); !ok || m["n"] != "2" || n != 2 {
		t.Fatalf("Run got %#v after %d builds, want the form's map with n as the text \"2\" (2 builds)", got, n)
	}
}
