package builtins

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/crystal-star/crystal-star/contrib"
)

// TestH29_2_CtxProgressOnlyInTools: the static checks' ctx shapes say
// which callback kinds have ctx.progress exactly as the runtime ctx does:
// only a tool's run (issue 29 point 2: it was listed for every kind, so
// check accepted ctx.progress in a placeholder, which failed at run time).
func TestH29_2_CtxProgressOnlyInTools(t *testing.T) {
	m := LookupCtxMember("progress")
	if m == nil {
		t.Fatal("no ctx member progress")
	}
	for runtime, static := range map[ctxKind]CtxKind{ctxTool: CtxTool, ctxCommand: CtxCommand,
		ctxPlaceholder: CtxPlaceholder, ctxAttach: CtxAttach} {
		has := progressCtx(&callCtx{kind: runtime}) != nil
		if has != m.Has(static) {
			t.Errorf("ctx of a %s: the runtime has progress %v, the shapes say %v", static, has, m.Has(static))
		}
	}
	for _, k := range []CtxKind{CtxPoint, CtxObserver} {
		if m.Has(k) { // point entries and observers run with the attach-stage ctx
			t.Errorf("the shapes give ctx.progress to a %s callback; its runtime ctx has none", k)
		}
	}
}

// TestH29_2_LoadMissingSaysDidYouMean: a load() of a missing file names
// the bundle's file nearest in spelling, or one of the same name in
// another directory.
func TestH29_2_LoadMissingSaysDidYouMean(t *testing.T) {
	bundle := fstest.MapFS{
		"plugin.star":   {Data: []byte("load(\"lib/txet.star\", \"a\")\nload(\"text.star\", \"b\")\ncontribute()\n")},
		"lib/text.star": {Data: []byte("a = 1\nb = 2\n")},
	}
	err := NewActivator(Options{}).Compile(contrib.ActivationRequest{Plugin: "acme.p", Bundle: bundle, Entry: "plugin.star"})
	var ae *contrib.ActivationError
	if !errors.As(err, &ae) || len(ae.Diagnostics) != 2 {
		t.Fatalf("Compile = %v; want two LoadMissing diagnostics", err)
	}
	for _, d := range ae.Diagnostics {
		if d.Code != contrib.LoadMissing || !strings.HasSuffix(d.Message, `(did you mean "lib/text.star"?)`) {
			t.Errorf("%v; want LoadMissing with (did you mean \"lib/text.star\"?)", d)
		}
	}
}
