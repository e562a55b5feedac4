package contrib

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestH26_4_FlatSchemaAgreesWithValidator: for every schema and argument
// text, decodeArgs, into the Go form and into another, (which takes the flat check when the schema is flat)
// answers exactly what the JSON Schema validator alone answers — the same
// acceptance and the same invalid_arguments message — and the flat check
// is really taken for the flat schemas.
func TestH26_4_FlatSchemaAgreesWithValidator(t *testing.T) {
	schemas := []struct {
		raw  string
		flat bool
	}{
		{`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`, true},
		{`{"type":"object","description":"d","properties":{"n":{"type":"integer","description":"n"},"f":{"type":"number"},"b":{"type":"boolean","title":"t"},"s":{"type":"string"}},"required":["n","s"],"additionalProperties":false}`, true},
		{`{"type":"object","additionalProperties":true,"properties":{"n":{"type":"integer"}}}`, true},
		{`{"type":"object"}`, true},
		{`{"type":"object","additionalProperties":false}`, true},
		{`{"type":"object","required":["a","b"]}`, true},
		// Not flat: every call goes to the validator.
		{`{"type":"object","properties":{"s":{"type":"string","minLength":2}}}`, false},
		{`{"type":"object","properties":{"e":{"type":"string","enum":["a","b"]}}}`, false},
		{`{"type":"object","properties":{"l":{"type":"array"}}}`, false},
		{`{"type":"object","properties":{"u":{"type":["string","null"]}}}`, false},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, false},
		{`{"properties":{"s":{"type":"string"}}}`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"s":{"type":"string"}}}`, false},
	}
	args := []string{
		`{}`, `null`, ``, `[]`, `"x"`, `3`,
		`{"text":"hello"}`, `{"text":"h\u00e9\ud83d\ude00"}`, `{"text":3}`, `{"text":null}`, `{"text":"a","extra":[1,{"k":2}]}`,
		`{"n":3,"s":"x"}`, `{"n":-3,"s":"x","f":1.5,"b":true}`, `{"n":3.0,"s":"x"}`, `{"n":1e2,"s":"x"}`, `{"n":1.5,"s":"x"}`,
		`{"n":"3","s":"x"}`, `{"n":3,"s":"x","other":1}`, `{"n":3}`, `{"s":"x","n":123456789012345678901234567890}`,
		`{"n":3,"s":"x","b":"true"}`, `{"n":3,"s":"x","f":"1"}`, `{"n":-0,"s":"x"}`, `{"n":3,"n":"x","s":"y"}`,
		`{"a":1,"b":2}`, `{"a":1}`, `{"s":"ab"}`, `{"s":"a"}`, `{"e":"a"}`, `{"e":"c"}`, `{"l":[]}`, `{"u":null}`,
		`{"t":`, `{"text":"a"} x`, `{"text":"\xff"}`,
	}
	for _, s := range schemas {
		sch, err := CompileSchema(json.RawMessage(s.raw))
		if err != nil {
			t.Fatalf("%s: %v", s.raw, err)
		}
		isFlat := sch.flat != nil
		if isFlat != s.flat {
			t.Errorf("%s: flat = %v, want %v", s.raw, isFlat, s.flat)
		}
		for _, a := range args {
			// The Go form, and another form (issue 26 point 4: the flat
			// check reads the kinds as parsed, whatever is built).
			for _, form := range []JSONBuilder{nil, testForm{}} {
				got, gotRes, gotOK := decodeArgs(sch, json.RawMessage(a), form)
				want, wantRes, wantOK := decodeArgsValidator(sch, json.RawMessage(a))
				if gotOK != wantOK || gotRes.Err != nil && wantRes.Err != nil && sameWords(gotRes.Err.Message) != sameWords(wantRes.Err.Message) ||
					(gotRes.Err == nil) != (wantRes.Err == nil) {
					t.Errorf("schema %s, args %s: got ok=%v %+v, the validator alone ok=%v %+v", s.raw, a, gotOK, gotRes.Err, wantOK, wantRes.Err)
				}
				if gotOK && wantOK {
					g, _ := json.Marshal(got)
					w, _ := json.Marshal(want)
					if string(g) != string(w) {
						t.Errorf("schema %s, args %s: value %s, want %s", s.raw, a, g, w)
					}
					if _, isGo := got.(map[string]any); form != nil && isGo {
						t.Errorf("schema %s, args %s: the Go form, want testForm's", s.raw, a)
					}
				}
			}
		}
	}
}

// sameWords normalizes a validator message for comparison: the validator
// lists several failures (and the names in one) in map order, which varies
// from one validation to the next.
func sameWords(msg string) string {
	w := strings.Fields(strings.NewReplacer(";", " ", ",", " ").Replace(msg))
	slices.Sort(w)
	return strings.Join(w, " ")
}

// decodeArgsValidator is decodeArgs before the flat check: the JSON Schema
// validator decides every call.
func decodeArgsValidator(sch any, raw json.RawMessage) (any, Result, bool) {
	v, res, ok := decodeArgs(nil, raw, nil)
	if !ok {
		return v, res, ok
	}
	if err := sch.(interface{ Validate(any) error }).Validate(v); err != nil {
		return nil, Failure(ErrInvalidArguments, describeViolations(err)), false
	}
	return v, Result{}, true
}

// TestH26_4_GateCancelsManyCalls: a gate cancelled while many calls run
// cancels each of them (the gate keeps their cancel functions itself now,
// instead of a callback per call on its context), reports them interrupted,
// and forgets the calls that left.
func TestH26_4_GateCancelsManyCalls(t *testing.T) {
	g := NewGate()
	const n = 16
	var entered, done sync.WaitGroup
	entered.Add(n)
	done.Add(n)
	interrupted := make(chan bool, n)
	for range n {
		go func() {
			defer done.Done()
			_, intr := g.Call(context.Background(), func(ctx context.Context) {
				done := ctx.Done() // a call's context is tracked once Done is asked (TestH26_4_GateCallContextIsLazy)
				entered.Done()
				<-done
			})
			interrupted <- intr
		}()
	}
	// Calls that already left are forgotten.
	for range 5 {
		g.Call(context.Background(), func(context.Context) {})
	}
	entered.Wait()
	g.mu.Lock()
	if len(g.calls) != n {
		t.Errorf("the gate tracks %d calls, want the %d running", len(g.calls), n)
	}
	g.mu.Unlock()
	g.Cancel()
	done.Wait()
	close(interrupted)
	for intr := range interrupted {
		if !intr {
			t.Error("a call cancelled with its gate was not reported interrupted")
		}
	}
	<-g.Drained()
	if len(g.calls) != 0 {
		t.Errorf("%d calls still tracked after all left", len(g.calls))
	}
}
