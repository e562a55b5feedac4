package check

import (
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/contrib"
)

// checkGuardHook reports each error(...) a hook of event returns and each
// fail(...) it calls, when event is one authors take for a guard
// (tool_call, approval, tool_result): a hook cannot deny a call, so such a
// guard fails open at run time, with only a note (issue 29 point 1).
func (c *checker) checkGuardHook(fi *fileInfo, event contrib.HookEvent, run syntax.Expr) {
	why, fix, ok := contrib.CannotDeny(event)
	if !ok || run == nil {
		return
	}
	fn := c.callable(fi, run)
	if fn == nil {
		return
	}
	report := func(pos syntax.Position, what string) {
		c.diags = append(c.diags, contrib.Diag(contrib.HookCannotDeny, c.b.Plugin, posOf(pos),
			"%s %s, but %s", fn.name, what, why).WithRemedy("%s", fix))
	}
	if fn.expr != nil {
		if isCallOf(fn.expr, "error") {
			start, _ := fn.expr.Span()
			report(start, "returns error(...)")
		}
		return
	}
	walkBody(fn.body, func(s syntax.Stmt) {
		switch s := s.(type) {
		case *syntax.ReturnStmt:
			if s.Result != nil && isCallOf(s.Result, "error") {
				report(s.Return, "returns error(...)")
			}
		case *syntax.ExprStmt:
			if isCallOf(s.X, "fail") {
				start, _ := s.X.Span()
				report(start, "calls fail(...)")
			}
		}
	})
}

// isCallOf reports whether x is a call of the function named name.
func isCallOf(x syntax.Expr, name string) bool {
	call, ok := x.(*syntax.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fn.(*syntax.Ident)
	return ok && id.Name == name
}
