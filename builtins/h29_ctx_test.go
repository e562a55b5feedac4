package builtins

import "testing"

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
