package check

import (
	"slices"
	"strings"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// checkFunctions checks every def and lambda the bundle passes as a
// callback — its parameters, its evident returns, its use of ctx — and
// every other function whose first parameter is called ctx, for the ctx
// fields no callback has.
func (c *checker) checkFunctions() {
	for _, fn := range c.order {
		seen := map[*builtins.Callback]bool{}
		for _, cb := range fn.uses {
			if seen[cb] {
				continue
			}
			seen[cb] = true
			c.checkArity(fn, cb)
			c.checkReturns(fn, cb)
		}
		c.checkCtxUse(fn)
	}
}

// arity returns how many positional arguments fn takes: required, at
// most (-1: any number).
func arity(params []syntax.Expr) (required, most int) {
	for _, p := range params {
		switch p := p.(type) {
		case *syntax.Ident:
			required++
			most++
		case *syntax.BinaryExpr:
			most++
		case *syntax.UnaryExpr:
			if p.Op == syntax.STAR && p.X != nil {
				return required, -1
			}
			return required, most // keyword-only parameters follow
		}
	}
	return required, most
}

func (c *checker) checkArity(fn *function, cb *builtins.Callback) {
	required, most := arity(fn.params)
	if msg, bad := builtins.ArityMessage(fn.name, fn.expr != nil, required, most, cb); bad {
		c.report(contrib.CallbackArity, fn.pos, "%s", msg)
	}
}

// checkReturns reports the returns of fn that evidently have a type the
// callback's host refuses, and a function that returns None where None is
// refused because it never returns a value.
func (c *checker) checkReturns(fn *function, cb *builtins.Callback) {
	if len(cb.Reject) == 0 {
		return
	}
	bad := func(pos syntax.Position, class builtins.ReturnClass) {
		c.report(contrib.CallbackReturn, pos, "%s returns %s, but %s must return %s", fn.name, class, cb.What, cb.Returns)
	}
	if fn.expr != nil {
		if class := c.classOf(fn.file, fn, fn.expr, 0); class != "" && slices.Contains(cb.Reject, class) {
			start, _ := fn.expr.Span()
			bad(start, class)
		}
		return
	}
	valued := false
	walkBody(fn.body, func(s syntax.Stmt) {
		r, ok := s.(*syntax.ReturnStmt)
		if !ok || r.Result == nil {
			return
		}
		valued = true
		if class := c.classOf(fn.file, fn, r.Result, 0); class != "" && slices.Contains(cb.Reject, class) {
			bad(r.Return, class)
		}
	})
	if !valued && !fails(fn.body) && slices.Contains(cb.Reject, builtins.ReturnNone) {
		c.report(contrib.CallbackReturn, fn.pos, "%s never returns a value, so it returns None, but %s must return %s",
			fn.name, cb.What, cb.Returns)
	}
}

// fails reports whether a function body calls fail(...) as a statement
// somewhere: such a function may end by failing, not by returning None.
func fails(body []syntax.Stmt) bool {
	found := false
	walkBody(body, func(s syntax.Stmt) {
		if x, ok := s.(*syntax.ExprStmt); ok {
			if call, ok := x.X.(*syntax.CallExpr); ok {
				if id, ok := call.Fn.(*syntax.Ident); ok && id.Name == "fail" {
					found = true
				}
			}
		}
	})
	return found
}

// walkBody calls f for every statement of a function body, in if, for and
// while bodies too, not descending into nested functions.
func walkBody(stmts []syntax.Stmt, f func(syntax.Stmt)) {
	for _, s := range stmts {
		f(s)
		switch s := s.(type) {
		case *syntax.IfStmt:
			walkBody(s.True, f)
			walkBody(s.False, f)
		case *syntax.ForStmt:
			walkBody(s.Body, f)
		case *syntax.WhileStmt:
			walkBody(s.Body, f)
		}
	}
}

// ctxKinds returns the ctx kinds fn receives, or nil when it is no
// callback (then every kind is possible).
func ctxKinds(fn *function) []builtins.CtxKind { return CtxKinds(fn.uses) }

// checkCtxUse checks the ctx fields fn reads through its first parameter,
// when that is a ctx: names per callback kind, members, capabilities, and
// the status fields named by literals.
func (c *checker) checkCtxUse(fn *function) {
	if len(fn.params) == 0 {
		return
	}
	first, ok := fn.params[0].(*syntax.Ident)
	if !ok {
		return
	}
	kinds := ctxKinds(fn)
	noCtx := len(fn.uses) > 0 && len(kinds) == 0
	if noCtx || (len(fn.uses) == 0 && first.Name != "ctx") {
		return
	}
	var statusParam string
	for _, cb := range fn.uses {
		if cb.What == string(contrib.AttachStatus) && len(fn.params) > 1 {
			if id, ok := fn.params[1].(*syntax.Ident); ok {
				statusParam = id.Name
			}
		}
	}
	visit := func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.DotExpr:
			if chain, root := dotChain(x); root == first.Name {
				c.checkCtxChain(fn, kinds, chain)
				return false
			}
		case *syntax.CallExpr:
			c.checkStatusCall(x, first.Name, statusParam)
		}
		return true
	}
	if fn.expr != nil {
		syntax.Walk(fn.expr, visit)
	}
	for _, s := range fn.body {
		syntax.Walk(s, visit)
	}
}

// dotChain returns the names of a.b.c read from an identifier, outermost
// last, and that identifier's name.
func dotChain(x *syntax.DotExpr) ([]*syntax.Ident, string) {
	var chain []*syntax.Ident
	var e syntax.Expr = x
	for {
		d, ok := e.(*syntax.DotExpr)
		if !ok {
			break
		}
		chain = append([]*syntax.Ident{d.Name}, chain...)
		e = d.X
	}
	if id, ok := e.(*syntax.Ident); ok {
		return chain, id.Name
	}
	return nil, ""
}

func (c *checker) checkCtxChain(fn *function, kinds []builtins.CtxKind, chain []*syntax.Ident) {
	field := chain[0]
	m := builtins.LookupCtxMember(field.Name)
	if m == nil {
		names := ctxNames(kinds)
		hint := contrib.DidYouMean(field.Name, names)
		if hint == "" {
			hint = "; its fields are " + strings.Join(names, ", ")
		}
		c.report(contrib.CtxFieldUnknown, field.NamePos, "ctx has no field %s%s", field.Name, hint)
		return
	}
	if len(kinds) > 0 && !slices.ContainsFunc(kinds, m.Has) {
		c.report(contrib.CtxFieldUnknown, field.NamePos, "ctx.%s exists only in the ctx of %s; %s is %s, whose ctx has no %s",
			field.Name, kindNames(m.Kinds), fn.name, whatOf(fn), field.Name)
		return
	}
	if m.Capability != "" && !slices.Contains(c.b.Capabilities, m.Capability) {
		c.report(contrib.CapabilityMissing, field.NamePos, "ctx.%s needs the %s capability; add capabilities = [%q] to plugin.toml",
			field.Name, m.Capability, m.Capability)
		return
	}
	path := "ctx." + field.Name
	for _, next := range chain[1:] {
		if m.Members == nil {
			return
		}
		sub := m.Member(next.Name)
		if sub == nil {
			var names []string
			for _, s := range m.Members {
				names = append(names, s.Name)
			}
			c.report(contrib.CtxFieldUnknown, next.NamePos, "%s has no member %s%s; it has %s", path, next.Name,
				contrib.DidYouMean(next.Name, names), strings.Join(names, ", "))
			return
		}
		path += "." + next.Name
		m = sub
	}
}

// ctxNames lists the ctx fields of the given kinds (all when none).
func ctxNames(kinds []builtins.CtxKind) []string {
	var names []string
	for _, m := range CtxFields(kinds) {
		names = append(names, m.Name)
	}
	return names
}

var kindWhat = map[builtins.CtxKind]string{
	builtins.CtxCommand: "a command's run", builtins.CtxPlaceholder: "a placeholder's resolve",
	builtins.CtxPoint: "a point entry's or hook's run", builtins.CtxObserver: "a thread_observer's or turn_observer's run",
	builtins.CtxTool: "a tool's run", builtins.CtxAttach: "an attach callback, timer or classifier",
}

func kindNames(kinds []builtins.CtxKind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = kindWhat[k]
	}
	return strings.Join(names, " or ")
}

func whatOf(fn *function) string {
	seen := map[string]bool{}
	var whats []string
	for _, cb := range fn.uses {
		if !seen[cb.What] {
			seen[cb.What] = true
			whats = append(whats, cb.What)
		}
	}
	return strings.Join(whats, " and ")
}

// checkStatusCall checks ctx.status.set("name", ...) and clear("name"), and
// the same on attach_status's sink parameter, against the declared fields.
func (c *checker) checkStatusCall(x *syntax.CallExpr, ctxName, sinkName string) {
	d, ok := x.Fn.(*syntax.DotExpr)
	if !ok || (d.Name.Name != "set" && d.Name.Name != "clear") || len(x.Args) == 0 {
		return
	}
	chain, root := dotChain(d)
	isStatus := (root == ctxName && len(chain) == 2 && chain[0].Name == "status") || (sinkName != "" && root == sinkName && len(chain) == 1)
	if !isStatus || !c.fieldsKnown {
		return
	}
	name, ok := StringLiteral(x.Args[0])
	if !ok || slices.Contains(c.fields, strings.ToLower(name)) {
		return
	}
	pos, _ := x.Args[0].Span()
	if len(c.fields) == 0 {
		c.report(contrib.StatusFieldUnknown, pos, "status.%s(%q): the plugin declares no status fields; add status_field(name = %q) to contribute(status_fields = [...])",
			d.Name.Name, name, name)
		return
	}
	c.report(contrib.StatusFieldUnknown, pos, "status.%s(%q): %q is not a status field of this plugin%s; it declares %s",
		d.Name.Name, name, name, contrib.DidYouMean(name, c.fields), strings.Join(c.fields, ", "))
}
