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
	// At the call's parenthesis, where the host's note at run time points.
	if fn.expr != nil {
		if call := callOf(fn.expr, "error"); call != nil {
			report(call.Lparen, "returns error(...)")
		}
		return
	}
	walkBody(fn.body, func(s syntax.Stmt) {
		switch s := s.(type) {
		case *syntax.ReturnStmt:
			if call := callOf(s.Result, "error"); call != nil {
				report(call.Lparen, "returns error(...)")
			}
		case *syntax.ExprStmt:
			if call := callOf(s.X, "fail"); call != nil {
				report(call.Lparen, "calls fail(...)")
			}
		}
	})
}

// callOf returns x when it is a call of the function named name, else nil.
func callOf(x syntax.Expr, name string) *syntax.CallExpr {
	call, ok := x.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	if id, ok := call.Fn.(*syntax.Ident); ok && id.Name == name {
		return call
	}
	return nil
}
