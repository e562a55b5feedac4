package builtins

import (
	"fmt"
	"slices"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/contrib"
)

// The in-process guards that stop a plugin before a single operation
// allocates more than the whole memory budget, or a builtin walks a value
// nested deeper than MaxNesting (docs/isolation.md). go.starlark.net lets one
// repeat allocate up to 2^30 elements (16 GiB for a list): `[0] * 1000000000`
// would end the process with Go's unrecoverable out-of-memory error before
// the heap watchdog could sample anything. The interpreter has no hook on
// its `*` operator, so the compiler turns every `*` whose operands are not
// both numbers, and neither a float or an int from 0 to 2, into a call of a
// hidden guard (repeatGuard). `+` is guarded by an operand index
// (operands.go) unless an operand is a literal (`i + 1` and `"k=" + v` stay
// direct: a literal operand grows a value by a constant, which the
// watchdog sees in time) or certainly a number (numeric.go): doubling a string with `s = s + s` allocates
// twice its size in one step, and forty such steps outran the watchdog's
// sampling eight-fold. A large allocation (bigAlloc) is checked against
// what the run's heap already holds, not only against the budget.

// The predeclared names of the operator guards (operands.go). They are not
// identifiers, so plugin source cannot name them (CC1).
const (
	repeatName  = "*"
	nestingName = "<format>"
	concatName  = "+"
	extendName  = "+="
)

// allocGuarded wraps one of the language's builtins that size their result
// from their argument's length and fill it inside one step
// (list(range(10**9)) preallocates 16 GB): the allocation, unit bytes per
// element, is checked first.
func allocGuarded(name string, unit uint64) *starlark.Builtin {
	inner := starlark.Universe[name].(*starlark.Builtin)
	return starlark.NewBuiltin(name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > 0 {
			if n := starlark.Len(args[0]); n > 0 {
				if err := checkAlloc(th, name+"() of "+args[0].Type(), uint64(n), unit); err != nil {
					return nil, err
				}
			}
		}
		return inner.CallInternal(th, args, kwargs)
	})
}

// valueSize is the size of one list or tuple element (an interface value).
const valueSize = 16

// allocError is an operation refused before it allocated.
type allocError struct {
	what  string
	bytes uint64
	limit int64
	inUse uint64 // the run's heap growth so far, when that made the difference
}

func (e *allocError) Error() string {
	if e.inUse > 0 {
		return fmt.Sprintf("memory_limit %s exceeded: %s would allocate %d bytes on top of %d in use; refused before allocating",
			contrib.FormatByteSize(e.limit), e.what, e.bytes, e.inUse)
	}
	return fmt.Sprintf("memory_limit %s exceeded: %s would allocate %d bytes; refused before allocating",
		contrib.FormatByteSize(e.limit), e.what, e.bytes)
}

// checkConcat refuses x + y when the result is larger than the budget.
func (inst *instance) checkConcat(x, y starlark.Value) error {
	var unit uint64
	switch x.(type) {
	case starlark.String, starlark.Bytes:
		unit = 1
	case *starlark.List, starlark.Tuple:
		unit = valueSize
	default:
		return nil // numbers and the rest: no sequence to copy
	}
	n, m := starlark.Len(x), starlark.Len(y)
	if n < 0 || m < 0 {
		return nil
	}
	return inst.checkAlloc(nil, x.Type()+" + "+y.Type(), uint64(n)+uint64(m), unit)
}

// repeatGuard is x * y, refused when it would repeat a string, bytes, list
// or tuple past the run's memory budget. Unlike the operand guards of `+`
// (operands.go) it is a call, so it knows its thread and credits what it
// allows to the run that asked (the heap watchdog's evidence, issue 24
// point 10); a `*` of operands certainly numbers takes no guard at all.
func repeatGuard(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	x, y := args[0], args[1]
	if inst, _ := th.Local(localInstance).(*instance); inst != nil {
		st, _ := th.Local(localRun).(*runState)
		if err := inst.checkRepeat(st, x, y); err != nil {
			return nil, err
		}
		if err := inst.checkRepeat(st, y, x); err != nil {
			return nil, err
		}
	}
	return starlark.Binary(syntax.STAR, x, y)
}

// checkRepeat refuses seq * n when the result is larger than the budget;
// st is the run asking.
func (inst *instance) checkRepeat(st *runState, seq, n starlark.Value) error {
	count, ok := n.(starlark.Int)
	if !ok {
		return nil
	}
	length, unit := seqSize(seq)
	if length <= 0 {
		return nil
	}
	c, ok := count.Uint64()
	if !ok || c == 0 {
		return nil // negative: empty; too large: go.starlark.net refuses it
	}
	return inst.checkAlloc(st, fmt.Sprintf("%s * %s", seq.Type(), count), c, uint64(length)*unit)
}

// seqSize returns the length of a string, bytes, list or tuple and the
// size of one of its elements; -1 for any other value.
func seqSize(v starlark.Value) (int, uint64) {
	switch s := v.(type) {
	case starlark.String:
		return len(s), 1
	case starlark.Bytes:
		return len(s), 1
	case *starlark.List:
		return s.Len(), valueSize
	case starlark.Tuple:
		return len(s), valueSize
	}
	return -1, 0
}

// checkAlloc refuses an operation of the thread's run that would allocate
// n items of unit bytes when that is more than the run's memory budget.
func checkAlloc(th *starlark.Thread, what string, n, unit uint64) error {
	inst, _ := th.Local(localInstance).(*instance)
	if inst == nil {
		return nil
	}
	st, _ := th.Local(localRun).(*runState)
	return inst.checkAlloc(st, what, n, unit)
}

// checkAlloc refuses an operation that would allocate n items of unit
// bytes when that is more than the generation's memory budget, or, from
// bigAlloc on, more than its runs' heap still has room for. st is the run
// asking, or nil when the guard cannot tell (an operator has no thread).
func (inst *instance) checkAlloc(st *runState, what string, n, unit uint64) error {
	if inst == nil || inst.memLimit <= 0 {
		return nil
	}
	if n > uint64(inst.memLimit)/unit {
		return &allocError{what: what, bytes: n * unit, limit: inst.memLimit}
	}
	if size := n * unit; size >= evidenceMin {
		if size >= bigAlloc {
			if inUse, ok := watchdog.fits(inst, size); !ok {
				return &allocError{what: what, bytes: size, limit: inst.memLimit, inUse: inUse}
			}
		}
		// The watchdog's evidence of who grows the heap: the run itself
		// when the guard knows it, else the generation's only run in
		// progress, else nobody (an operand guard of `+` has no thread,
		// and crediting every run would blame one that did not allocate).
		if st != nil {
			st.allocated.Add(size)
		} else {
			watchdog.creditSole(inst, size)
		}
	}
	return nil
}

// evidenceMin is the size from which a guarded allocation counts as the
// run's evidence of growing the heap (runState.allocated): below it the
// bookkeeping would cost more than the copy.
const evidenceMin = 1 << 10

// bigAlloc is the size from which a guarded allocation is checked against
// the run's heap: reading the heap costs about a microsecond, copying 1 MiB
// some fifty.
const bigAlloc = 1 << 20

// guardRepeats rewrites f so that the operands of every guarded `*`, `*=`,
// `+`, `+=`, and of `%` and `.format` on a literal string, pass their guard.
// It returns the names of the guards it put in.
func guardRepeats(f *syntax.File) []string {
	g := &repeatRewriter{rebound: reboundNames(f)}
	g.stmts(f.Stmts)
	f.Stmts = append(g.aliases(f.Path), f.Stmts...)
	return g.used
}

// repeatRewriter rewrites one file; used collects the guards it put in.
type repeatRewriter struct {
	used    []string
	rebound map[string]bool // every name the file binds (numeric.go)
	numeric map[string]bool // the numeric locals of the scope being rewritten; nil: none
}

// num reports whether e is certainly a number (numeric.go).
func (g *repeatRewriter) num(e syntax.Expr) bool {
	return g.numeric != nil && isNumeric(e, g.numeric, g.rebound)
}

// inScope rewrites with numeric as the numeric locals, then restores them.
func (g *repeatRewriter) inScope(numeric map[string]bool, rewrite func()) {
	saved := g.numeric
	g.numeric = numeric
	rewrite()
	g.numeric = saved
}

func (g *repeatRewriter) stmts(list []syntax.Stmt) {
	for _, s := range list {
		g.stmt(s)
	}
}

func (g *repeatRewriter) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.AssignStmt:
		s.LHS = g.expr(s.LHS)
		s.RHS = g.expr(s.RHS)
		if s.Op == syntax.STAR_EQ && pure(s.LHS) && !(g.num(s.LHS) && g.num(s.RHS)) {
			// x *= y is x = x * y; the left side is evaluated twice, so
			// only side-effect-free targets are rewritten.
			s.RHS = g.repeat(s.OpPos, s.LHS, s.RHS)
			s.Op = syntax.EQ
		}
		if s.Op == syntax.PLUS_EQ && !literal(s.RHS) && !g.num(s.RHS) && !g.num(s.LHS) {
			s.RHS = g.index(s.OpPos, extendName, s.RHS) // x += G[y]
		}
	case *syntax.DefStmt:
		g.exprs(s.Params) // defaults are evaluated in the enclosing scope
		g.inScope(scalarLocals(s, g.rebound), func() { g.stmts(s.Body) })
	case *syntax.ExprStmt:
		s.X = g.expr(s.X)
	case *syntax.ForStmt:
		s.X = g.expr(s.X)
		g.stmts(s.Body)
	case *syntax.WhileStmt:
		s.Cond = g.expr(s.Cond)
		g.stmts(s.Body)
	case *syntax.IfStmt:
		s.Cond = g.expr(s.Cond)
		g.stmts(s.True)
		g.stmts(s.False)
	case *syntax.ReturnStmt:
		if s.Result != nil {
			s.Result = g.expr(s.Result)
		}
	}
}

func (g *repeatRewriter) exprs(list []syntax.Expr) {
	for i := range list {
		list[i] = g.expr(list[i])
	}
}

func (g *repeatRewriter) expr(e syntax.Expr) syntax.Expr {
	switch e := e.(type) {
	case *syntax.BinaryExpr:
		e.X, e.Y = g.expr(e.X), g.expr(e.Y)
		if e.Op == syntax.STAR && !(number(e.X) && number(e.Y)) && !smallFactor(e.X) && !smallFactor(e.Y) {
			return g.repeat(e.OpPos, e.X, e.Y) // R(x, y)
		}
		if e.Op == syntax.PLUS && !literal(e.X) && !literal(e.Y) && !g.num(e.X) && !g.num(e.Y) {
			e.Y = g.index(e.OpPos, concatName, e.Y) // x + G[y]
		}
		if e.Op == syntax.PERCENT && stringLiteral(e.X) {
			e.Y = g.index(e.OpPos, nestingName, e.Y) // "…" % x walks x
		}
	case *syntax.UnaryExpr:
		if e.X != nil {
			e.X = g.expr(e.X)
		}
	case *syntax.CallExpr:
		e.Fn = g.expr(e.Fn)
		g.exprs(e.Args)
		if dot, ok := e.Fn.(*syntax.DotExpr); ok && dot.Name.Name == "format" && stringLiteral(dot.X) {
			for i, a := range e.Args { // "…".format(…) walks every argument
				switch a := a.(type) {
				case *syntax.BinaryExpr: // name = value
					a.Y = g.index(e.Lparen, nestingName, a.Y)
				case *syntax.UnaryExpr: // *args, **kwargs
					a.X = g.index(e.Lparen, nestingName, a.X)
				default:
					e.Args[i] = g.index(e.Lparen, nestingName, a)
				}
			}
		}
	case *syntax.Comprehension:
		g.inScope(nil, func() { // it binds names of its own
			e.Body = g.expr(e.Body)
			for _, c := range e.Clauses {
				switch c := c.(type) {
				case *syntax.ForClause:
					c.X = g.expr(c.X)
				case *syntax.IfClause:
					c.Cond = g.expr(c.Cond)
				}
			}
		})
	case *syntax.CondExpr:
		e.Cond, e.True, e.False = g.expr(e.Cond), g.expr(e.True), g.expr(e.False)
	case *syntax.DictEntry:
		e.Key, e.Value = g.expr(e.Key), g.expr(e.Value)
	case *syntax.DictExpr:
		g.exprs(e.List)
	case *syntax.DotExpr:
		e.X = g.expr(e.X)
	case *syntax.IndexExpr:
		e.X, e.Y = g.expr(e.X), g.expr(e.Y)
	case *syntax.LambdaExpr:
		g.exprs(e.Params)
		g.inScope(nil, func() { e.Body = g.expr(e.Body) })
	case *syntax.ListExpr:
		g.exprs(e.List)
	case *syntax.TupleExpr:
		g.exprs(e.List)
	case *syntax.ParenExpr:
		e.X = g.expr(e.X)
	case *syntax.SliceExpr:
		for _, p := range []*syntax.Expr{&e.X, &e.Lo, &e.Hi, &e.Step} {
			if *p != nil {
				*p = g.expr(*p)
			}
		}
	}
	return e
}

// repeat is x * y guarded: a call of repeatGuard, R(x, y), which knows
// its thread (the run it credits), unless both operands are certainly
// numbers (a count alone allocates nothing).
func (g *repeatRewriter) repeat(pos syntax.Position, x, y syntax.Expr) syntax.Expr {
	if (number(x) || g.num(x)) && (number(y) || g.num(y)) {
		return &syntax.BinaryExpr{OpPos: pos, Op: syntax.STAR, X: x, Y: y}
	}
	if !slices.Contains(g.used, repeatName) {
		g.used = append(g.used, repeatName)
	}
	return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: pos, Name: aliasPrefix + repeatName}, Lparen: pos, Args: []syntax.Expr{x, y}, Rparen: pos}
}

func stringLiteral(e syntax.Expr) bool {
	lit, ok := e.(*syntax.Literal)
	return ok && lit.Token == syntax.STRING
}

// smallFactor reports a literal that cannot make x * it larger than x + x,
// which Starlark computes in one step anyway: an int literal from 0 to 2, or
// a float (a float times a sequence is an error). Numeric code such as
// `i * 2` or `x * 0.5` then runs without the guard's call.
func smallFactor(e syntax.Expr) bool {
	lit, ok := e.(*syntax.Literal)
	if !ok {
		return false
	}
	switch v := lit.Value.(type) {
	case int64:
		return v >= 0 && v <= 2
	case float64:
		return true
	}
	return false
}

func literal(e syntax.Expr) bool {
	_, ok := e.(*syntax.Literal)
	return ok
}

func number(e syntax.Expr) bool {
	lit, ok := e.(*syntax.Literal)
	return ok && (lit.Token == syntax.INT || lit.Token == syntax.FLOAT)
}

// pure reports whether evaluating e twice is the same as once: a name, or
// an index or attribute of names and literals.
func pure(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.Ident, *syntax.Literal:
		return true
	case *syntax.IndexExpr:
		return pure(e.X) && pure(e.Y)
	case *syntax.DotExpr:
		return pure(e.X)
	case *syntax.ParenExpr:
		return pure(e.X)
	}
	return false
}
