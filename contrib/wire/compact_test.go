package wire

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
)

// TestH26_2_CompactToolCallRoundTrips: a tool call's Invoke and Result
// read back from the compact encoding as they were, and a JSON body is
// still read (either side reads both).
func TestH26_2_CompactToolCallRoundTrips(t *testing.T) {
	in := Invoke{Index: 3, Group: 7, Progress: true, Args: json.RawMessage(`{"text":"héllo"}`),
		Facts: contrib.Facts{Workspace: "/w", SessionID: "s1", Mode: "plan", ApprovalMode: "ask", Provider: "p", Model: "m"}}
	body := AppendToolInvoke(nil, in)
	if body[0] == '{' {
		t.Fatal("the compact body reads as JSON")
	}
	var got Invoke
	if err := DecodeInvoke(body, &got); err != nil || !reflect.DeepEqual(got, in) {
		t.Fatalf("DecodeInvoke = %+v, %v; want %+v", got, err, in)
	}
	j, _ := json.Marshal(in)
	if err := DecodeInvoke(j, &got); err != nil || got.Index != 3 || got.Facts != in.Facts {
		t.Fatalf("DecodeInvoke of JSON = %+v, %v", got, err)
	}
	for _, cut := range []int{1, 2, 4, 6} {
		if err := DecodeInvoke(body[:cut], &got); err == nil {
			t.Errorf("a body cut at %d decoded", cut)
		}
	}
	for _, r := range []contrib.Result{
		{Text: "hello"},
		{},
		{Text: "x", Data: json.RawMessage(`{"a":1}`)},
		{Parts: []contrib.Part{{Type: "text", Text: "p"}}},
		contrib.Failure(contrib.ErrToolFailed, "no"),
	} {
		b, err := AppendResult(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		if compact := r.Data == nil && r.Parts == nil && r.Err == nil; compact != (b[0] == compactTag) {
			t.Errorf("result %+v: compact body %v, want %v", r, !compact, compact)
		}
		back, err := DecodeResult(b)
		if err != nil || !reflect.DeepEqual(back, r) {
			t.Errorf("result %+v came back as %+v, %v", r, back, err)
		}
	}
}

// TestH26_2_CompactCoversEveryField: the compact encoding names the fields
// it carries; a field added to Invoke, contrib.Facts or contrib.Result
// must be added to it (or, for Invoke, be one a tool call leaves zero).
func TestH26_2_CompactCoversEveryField(t *testing.T) {
	for typ, want := range map[reflect.Type][]string{
		reflect.TypeOf(Invoke{}): {"Index", "Args", "Group", "Progress", "Facts",
			// zero in a tool call (ToolStub):
			"Inv", "Site", "Event", "Payload", "Call", "Tool", "Client", "Multimodal"},
		reflect.TypeOf(contrib.Facts{}):  {"Workspace", "SessionID", "Mode", "ApprovalMode", "Provider", "Model"},
		reflect.TypeOf(contrib.Result{}): {"Text", "Data", "Parts", "Err"},
	} {
		var have []string
		for i := range typ.NumField() {
			have = append(have, typ.Field(i).Name)
		}
		slices.Sort(have)
		slices.Sort(want)
		if !slices.Equal(have, want) {
			t.Errorf("%s has fields %v; the compact tool call knows %v (contrib/wire/compact.go)", typ, have, want)
		}
	}
}
