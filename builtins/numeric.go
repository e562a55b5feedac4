package builtins

import "go.starlark.net/syntax"

// Numbers need no operator guard: `n += i` cannot grow a sequence when i
// is a number (an int added to a list is an error, not an allocation).
// Before putting a guard in, the compiler asks whether an operand is
// certainly a number, by a small flow-insensitive analysis of each
// function: a local is numeric when every binding of it in the function's
// own scope gives it a number — a number literal, `for i in range(…)`,
// arithmetic of numbers, len(), int(), float(), ord(), hash(), abs(), or
// an augmented assignment of a number. Parameters, names bound by
// unpacking, by a nested def or in another scope are never numeric; inside
// a comprehension or a lambda nothing is, since they bind names of their
// own. A builtin name counts only if the file never binds it.

// numericBuiltins are the universal functions whose result is a number.
var numericBuiltins = map[string]bool{"len": true, "int": true, "float": true, "ord": true, "hash": true, "abs": true}

// scalarLocals returns the names of def's own scope that only ever hold
// numbers; rebound holds every name the file binds anywhere.
func scalarLocals(def *syntax.DefStmt, rebound map[string]bool) map[string]bool {
	type binding struct {
		name string
		rhs  syntax.Expr // nil: not a number (a parameter, unpacking, a def)
	}
	var bindings []binding
	var stmts func([]syntax.Stmt)
	stmts = func(list []syntax.Stmt) {
		for _, s := range list {
			switch s := s.(type) {
			case *syntax.AssignStmt:
				if id, ok := s.LHS.(*syntax.Ident); ok {
					bindings = append(bindings, binding{id.Name, s.RHS})
				} else {
					for _, name := range boundNames(s.LHS) {
						bindings = append(bindings, binding{name: name})
					}
				}
			case *syntax.ForStmt:
				id, ok := s.Vars.(*syntax.Ident)
				if ok && isCall(s.X, "range", rebound) {
					bindings = append(bindings, binding{id.Name, &syntax.Literal{Token: syntax.INT, Value: int64(0)}})
				} else {
					for _, name := range boundNames(s.Vars) {
						bindings = append(bindings, binding{name: name})
					}
				}
				stmts(s.Body)
			case *syntax.WhileStmt:
				stmts(s.Body)
			case *syntax.IfStmt:
				stmts(s.True)
				stmts(s.False)
			case *syntax.DefStmt:
				bindings = append(bindings, binding{name: s.Name.Name})
			}
		}
	}
	for _, p := range def.Params {
		for _, name := range boundNames(p) {
			bindings = append(bindings, binding{name: name})
		}
	}
	stmts(def.Body)
	numeric := map[string]bool{}
	for _, b := range bindings {
		numeric[b.name] = true
	}
	for changed := true; changed; {
		changed = false
		for _, b := range bindings {
			if numeric[b.name] && (b.rhs == nil || !isNumeric(b.rhs, numeric, rebound)) {
				delete(numeric, b.name)
				changed = true
			}
		}
	}
	return numeric
}

// isNumeric reports whether e certainly evaluates to a number (or fails).
func isNumeric(e syntax.Expr, numeric, rebound map[string]bool) bool {
	switch e := e.(type) {
	case *syntax.Literal:
		return e.Token == syntax.INT || e.Token == syntax.FLOAT
	case *syntax.Ident:
		return numeric[e.Name]
	case *syntax.ParenExpr:
		return isNumeric(e.X, numeric, rebound)
	case *syntax.UnaryExpr:
		return (e.Op == syntax.MINUS || e.Op == syntax.PLUS || e.Op == syntax.TILDE) && isNumeric(e.X, numeric, rebound)
	case *syntax.BinaryExpr:
		switch e.Op {
		case syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.SLASH, syntax.SLASHSLASH, syntax.PERCENT,
			syntax.AMP, syntax.PIPE, syntax.CIRCUMFLEX, syntax.LTLT, syntax.GTGT:
			return isNumeric(e.X, numeric, rebound) && isNumeric(e.Y, numeric, rebound)
		}
	case *syntax.CondExpr:
		return isNumeric(e.True, numeric, rebound) && isNumeric(e.False, numeric, rebound)
	case *syntax.CallExpr:
		id, ok := e.Fn.(*syntax.Ident)
		return ok && numericBuiltins[id.Name] && !rebound[id.Name]
	}
	return false
}

// isCall reports whether e calls the universal function name.
func isCall(e syntax.Expr, name string, rebound map[string]bool) bool {
	call, ok := e.(*syntax.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fn.(*syntax.Ident)
	return ok && id.Name == name && !rebound[name]
}

// boundNames returns the names a binding target (or a parameter) binds.
func boundNames(e syntax.Expr) []string {
	switch e := e.(type) {
	case *syntax.Ident:
		return []string{e.Name}
	case *syntax.ParenExpr:
		return boundNames(e.X)
	case *syntax.TupleExpr:
		return boundList(e.List)
	case *syntax.ListExpr:
		return boundList(e.List)
	case *syntax.BinaryExpr: // a parameter with a default: name = value
		return boundNames(e.X)
	case *syntax.UnaryExpr: // *args, **kwargs
		if e.X != nil {
			return boundNames(e.X)
		}
	}
	return nil
}

func boundList(list []syntax.Expr) []string {
	var names []string
	for _, x := range list {
		names = append(names, boundNames(x)...)
	}
	return names
}

// reboundNames returns every name f binds anywhere: at top level, in any
// function, comprehension or lambda, or by load.
func reboundNames(f *syntax.File) map[string]bool {
	names := map[string]bool{}
	add := func(list []string) {
		for _, n := range list {
			names[n] = true
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.AssignStmt:
			add(boundNames(n.LHS))
		case *syntax.DefStmt:
			names[n.Name.Name] = true
			add(boundList(n.Params))
		case *syntax.ForStmt:
			add(boundNames(n.Vars))
		case *syntax.ForClause:
			add(boundNames(n.Vars))
		case *syntax.LambdaExpr:
			add(boundList(n.Params))
		case *syntax.LoadStmt:
			for _, id := range n.To {
				names[id.Name] = true
			}
		}
		return true
	})
	return names
}
