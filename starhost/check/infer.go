package check

import (
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
)

// Simple inference of what a callback returns, beyond literals (issue 29
// point 2): a local or global variable every assignment of which gives one
// class, a call of a Starlark builtin or string method whose result is
// known, json.encode, an operator on values of known class, a conditional
// of two values of one class, and a call of the plugin's own function
// whose every return gives one class. Anything else is unknown (""), so
// check never guesses.

// maxInferDepth bounds how far inference follows variables and calls.
const maxInferDepth = 6

// universeResults are the classes of calls of Starlark's own functions.
var universeResults = map[string]builtins.ReturnClass{
	"str": builtins.ReturnString, "repr": builtins.ReturnString, "type": builtins.ReturnString,
	"len": builtins.ReturnInt, "int": builtins.ReturnInt, "hash": builtins.ReturnInt,
	"float": builtins.ReturnFloat, "bool": builtins.ReturnBool,
	"dict": builtins.ReturnDict, "list": builtins.ReturnList, "sorted": builtins.ReturnList,
	"tuple": builtins.ReturnTuple,
}

// stringMethods are the classes of the results of string methods.
var stringMethods = map[string]builtins.ReturnClass{
	"capitalize": builtins.ReturnString, "format": builtins.ReturnString, "join": builtins.ReturnString,
	"lower": builtins.ReturnString, "lstrip": builtins.ReturnString, "removeprefix": builtins.ReturnString,
	"removesuffix": builtins.ReturnString, "replace": builtins.ReturnString, "rstrip": builtins.ReturnString,
	"strip": builtins.ReturnString, "title": builtins.ReturnString, "upper": builtins.ReturnString,
	"split": builtins.ReturnList, "rsplit": builtins.ReturnList, "splitlines": builtins.ReturnList,
	"count": builtins.ReturnInt, "find": builtins.ReturnInt, "rfind": builtins.ReturnInt,
	"index": builtins.ReturnInt, "rindex": builtins.ReturnInt,
	"startswith": builtins.ReturnBool, "endswith": builtins.ReturnBool, "isalnum": builtins.ReturnBool,
	"isalpha": builtins.ReturnBool, "isdigit": builtins.ReturnBool, "islower": builtins.ReturnBool,
	"isspace": builtins.ReturnBool, "istitle": builtins.ReturnBool, "isupper": builtins.ReturnBool,
}

// stringOnly are the string methods no other Starlark value has, so that
// their receiver is a string whatever it is read from.
var stringOnly = map[string]bool{
	"capitalize": true, "lower": true, "lstrip": true, "removeprefix": true, "removesuffix": true,
	"rstrip": true, "strip": true, "title": true, "upper": true, "split": true, "rsplit": true,
	"splitlines": true, "startswith": true, "endswith": true, "isalnum": true, "isalpha": true,
	"isdigit": true, "islower": true, "isspace": true, "istitle": true, "isupper": true,
}

// classOf returns the class v has, read in fn (nil: at top level of fi),
// or "" when that takes running the code to know.
func (c *checker) classOf(fi *fileInfo, fn *function, v syntax.Expr, depth int) builtins.ReturnClass {
	if class := evident(fi, v, c); class != "" || depth > maxInferDepth {
		return class
	}
	switch v := v.(type) {
	case *syntax.ParenExpr:
		return c.classOf(fi, fn, v.X, depth+1)
	case *syntax.Ident:
		return c.variableClass(fi, fn, v, depth+1)
	case *syntax.CallExpr:
		return c.callClass(fi, fn, v, depth+1)
	case *syntax.CondExpr:
		t, f := c.classOf(fi, fn, v.True, depth+1), c.classOf(fi, fn, v.False, depth+1)
		if t == f {
			return t
		}
	case *syntax.UnaryExpr:
		if v.Op == syntax.NOT {
			return builtins.ReturnBool
		}
	case *syntax.BinaryExpr:
		switch v.Op {
		case syntax.EQL, syntax.NEQ, syntax.LT, syntax.GT, syntax.LE, syntax.GE, syntax.IN, syntax.NOT_IN:
			return builtins.ReturnBool
		case syntax.PERCENT:
			if c.classOf(fi, fn, v.X, depth+1) == builtins.ReturnString {
				return builtins.ReturnString
			}
		case syntax.PLUS:
			l, r := c.classOf(fi, fn, v.X, depth+1), c.classOf(fi, fn, v.Y, depth+1)
			if l == r && (l == builtins.ReturnString || l == builtins.ReturnInt || l == builtins.ReturnList) {
				return l
			}
		}
	}
	return ""
}

// variableClass is the class of a name read in fn: a local every
// assignment of which gives one class, else a global assigned once.
func (c *checker) variableClass(fi *fileInfo, fn *function, id *syntax.Ident, depth int) builtins.ReturnClass {
	if fn != nil {
		for _, p := range fn.params {
			if ParamName(p) == id.Name {
				return ""
			}
		}
		if fn.expr == nil {
			class, bound := c.assignedClass(fi, fn, fn.body, id.Name, true, depth)
			if bound {
				return class
			}
		}
	}
	if _, loaded := fi.loads[id.Name]; loaded || fi.defs[id.Name] != nil {
		return ""
	}
	class, _ := c.assignedClass(fi, nil, fi.f.Stmts, id.Name, false, depth)
	return class
}

// assignedClass returns the one class every binding of name in stmts
// gives, and whether any binds it; a binding other than name = ... or
// name += ... (a loop variable, unpacking), or two classes, is unknown.
func (c *checker) assignedClass(fi *fileInfo, fn *function, stmts []syntax.Stmt, name string, nested bool, depth int) (builtins.ReturnClass, bool) {
	var class builtins.ReturnClass
	bound, unknown := false, false
	visit := func(s syntax.Stmt) {
		switch s := s.(type) {
		case *syntax.AssignStmt:
			if id, ok := s.LHS.(*syntax.Ident); ok && id.Name == name {
				got := c.classOf(fi, fn, s.RHS, depth)
				if s.Op != syntax.EQ && s.Op != syntax.PLUS_EQ {
					got = ""
				}
				if s.Op == syntax.PLUS_EQ && bound && got != class {
					got = ""
				}
				if got == "" || bound && got != class {
					unknown = true
				}
				class, bound = got, true
			} else if binds(s.LHS, name) {
				bound, unknown = true, true
			}
		case *syntax.ForStmt:
			if binds(s.Vars, name) {
				bound, unknown = true, true
			}
		}
	}
	if nested {
		walkBody(stmts, visit)
	} else {
		for _, s := range stmts {
			visit(s)
		}
	}
	if unknown {
		return "", bound
	}
	return class, bound
}

// binds reports whether the target expression x assigns name.
func binds(x syntax.Expr, name string) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// ParamName is the name a parameter of a def or lambda binds (x, x=1,
// *x, **x), or "" for a bare *. The language server reads parameters
// with it too.
func ParamName(p syntax.Expr) string {
	switch p := p.(type) {
	case *syntax.Ident:
		return p.Name
	case *syntax.BinaryExpr:
		return ParamName(p.X)
	case *syntax.UnaryExpr:
		if p.X != nil {
			return ParamName(p.X)
		}
	}
	return ""
}

// callClass is the class of a call's result: a Starlark builtin, a string
// method, json.encode, or the plugin's own function.
func (c *checker) callClass(fi *fileInfo, fn *function, x *syntax.CallExpr, depth int) builtins.ReturnClass {
	switch f := x.Fn.(type) {
	case *syntax.Ident:
		if class, ok := universeResults[f.Name]; ok && universalUse(fi, f) {
			return class
		}
		if callee := c.lookupFunc(fi, f.Name); callee != nil {
			return c.returnClass(callee, depth)
		}
	case *syntax.DotExpr:
		if id, ok := f.X.(*syntax.Ident); ok && id.Name == "json" && f.Name.Name == "encode" && predeclaredUse(fi, id) {
			return builtins.ReturnString
		}
		if class, ok := stringMethods[f.Name.Name]; ok && (stringOnly[f.Name.Name] || c.classOf(fi, fn, f.X, depth) == builtins.ReturnString) {
			return class
		}
	}
	return ""
}

// returnClass is the one class every return of fn gives, when fn cannot
// end without one; else "".
func (c *checker) returnClass(fn *function, depth int) builtins.ReturnClass {
	if fn.expr != nil {
		return c.classOf(fn.file, fn, fn.expr, depth)
	}
	if len(fn.body) == 0 {
		return ""
	}
	if _, ends := fn.body[len(fn.body)-1].(*syntax.ReturnStmt); !ends {
		return "" // it may fall off the end and return None
	}
	var class builtins.ReturnClass
	known := true
	walkBody(fn.body, func(s syntax.Stmt) {
		r, ok := s.(*syntax.ReturnStmt)
		if !ok || !known {
			return
		}
		var got builtins.ReturnClass = builtins.ReturnNone
		if r.Result != nil {
			got = c.classOf(fn.file, fn, r.Result, depth)
		}
		if got == "" || class != "" && got != class {
			known = false
		}
		class = got
	})
	if !known {
		return ""
	}
	return class
}
