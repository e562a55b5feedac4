package builtins

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// TestSignaturesMatchConstructors holds the static signature table to the
// real constructors: each keyword of the table is accepted, and none more.
func TestSignaturesMatchConstructors(t *testing.T) {
	th := &starlark.Thread{}
	for _, sig := range Signatures() {
		b, ok := predeclared[sig.Name].(*starlark.Builtin)
		if !ok {
			t.Errorf("%s: not a predeclared builtin", sig.Name)
			continue
		}
		for _, p := range sig.Params {
			_, err := starlark.Call(th, b, nil, []starlark.Tuple{{starlark.String(p.Name), starlark.None}})
			if err != nil && strings.Contains(err.Error(), "unexpected keyword") {
				t.Errorf("%s: the table's keyword %s is refused: %v", sig.Name, p.Name, err)
			}
		}
		if sig.Name == "contribute" {
			continue // keyword-only; checked by name above
		}
		args := make(starlark.Tuple, len(sig.Params)+1)
		for i := range args {
			args[i] = starlark.None
		}
		_, err := starlark.Call(th, b, args, nil)
		if want := fmt.Sprintf("at most %d", len(sig.Params)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %d positional arguments: %v; want an error saying %q", sig.Name, len(args), err, want)
		}
	}
}

// TestCtxMembersMatchCtx holds the ctx shape table to the ctx of the
// running host: its base fields and every field a feature file adds.
func TestCtxMembersMatchCtx(t *testing.T) {
	var want []string
	want = append(want, baseCtxAttrs...)
	want = append(want, "out", "site")
	for _, f := range ctxFields {
		want = append(want, f.name)
	}
	slices.Sort(want)
	var got []string
	for _, m := range CtxMembers() {
		got = append(got, m.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("CtxMembers() = %v;\nthe ctx has %v", got, want)
	}
	if m := LookupCtxMember("store"); m == nil || len(m.Members) != len((&store{}).AttrNames()) {
		t.Errorf("ctx.store members = %v", m)
	}
}
