package builtins

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// The operator guards are paid where a value can grow, not at every
// operation (issue 26). The compiler rewrites a guarded operand y into an
// index of a hidden predeclared mapping, operandGuard[y] (`x + y` becomes
// `x + G[y]`). Indexing a mapping costs the interpreter one interface call,
// without the frame, argument tuple and deferred recovery a builtin call
// costs — that call was three quarters of a loop like `n += i`. Get returns
// the operand itself when the operation cannot grow past what the guard
// would refuse — a number, or a string, bytes, list or tuple smaller than
// growthFree — so the interpreter then runs the operator at its own speed.
// Only a larger sequence comes back wrapped (guardedOperand): the
// interpreter hands the operator to the wrapper (starlark.HasBinary), which
// checks the result's size against the generation's memory budget exactly
// as before and then performs the operation.
//
// Why skipping small operands keeps every refusal: `x + y` with y smaller
// than growthFree grows x by less than growthFree, as a literal operand
// does (never guarded); doubling needs both operands large, and the
// second is wrapped. `*` is not guarded here but by a call, repeatGuard
// (guard.go), which knows the run it credits (issue 24 point 10).

// growthFree is the size (bytes, or 16 per list or tuple element) under
// which the right operand of `+` or `+=` is not checked. A skipped step
// grows a value by less than this, like a literal operand (never
// guarded); the rest of what it allocates copies a value that exists
// already, and growth by such steps is the heap watchdog's. Two operands
// under it cannot reach bigAlloc, nor a memory_limit of 128 KiB or more.
const growthFree = 64 << 10

// guardOp is the operator an operandGuard stands in front of.
type guardOp uint8

const (
	guardConcat guardOp = iota // x + G[y]
	guardExtend                // x += G[y]
	guardFormat                // "…" % G[x], "…".format(G[x])
)

// operandGuard is a hidden predeclared mapping (its name is not an
// identifier, so plugin source cannot name it). Each generation has its
// own, bound to its memory budget (instancePredeclared); the shared
// Predeclared dict holds unbound ones, which check nesting but no budget.
type operandGuard struct {
	op   guardOp
	inst *instance
}

var (
	_ starlark.Mapping   = (*operandGuard)(nil)
	_ starlark.HasBinary = (*guardedOperand)(nil)
)

func (g *operandGuard) String() string        { return "<operator guard>" }
func (g *operandGuard) Type() string          { return "operator_guard" }
func (g *operandGuard) Freeze()               {}
func (g *operandGuard) Truth() starlark.Bool  { return starlark.True }
func (g *operandGuard) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: %s", g.Type()) }

// Get returns v, or v wrapped when the operation it is an operand of must
// be checked. A format operand is checked here (its walk depends on v
// alone).
func (g *operandGuard) Get(v starlark.Value) (starlark.Value, bool, error) {
	if g.op == guardFormat {
		if err := checkNesting(v); err != nil {
			return nil, false, fmt.Errorf("format: %v", err)
		}
		return v, true, nil
	}
	if g.inst == nil || g.inst.memLimit <= 0 {
		return v, true, nil
	}
	n, unit := seqSize(v)
	if n <= 0 || uint64(n)*unit < growthFree {
		return v, true, nil
	}
	return &guardedOperand{g: g, v: v}, true, nil
}

// guardedOperand is an operand the interpreter hands its operator to:
// it checks the result's size, then performs the operation on the
// unwrapped values, so results and error messages are the language's own.
type guardedOperand struct {
	g *operandGuard
	v starlark.Value
}

func (w *guardedOperand) String() string        { return w.v.String() }
func (w *guardedOperand) Type() string          { return w.v.Type() }
func (w *guardedOperand) Freeze()               { w.v.Freeze() }
func (w *guardedOperand) Truth() starlark.Bool  { return w.v.Truth() }
func (w *guardedOperand) Hash() (uint32, error) { return w.v.Hash() }

// Binary performs x op y, w being x (side Left) or y (Right).
func (w *guardedOperand) Binary(op syntax.Token, other starlark.Value, side starlark.Side) (starlark.Value, error) {
	x, y := w.v, other
	if side == starlark.Right {
		x, y = other, w.v
	}
	inst := w.g.inst
	switch w.g.op {
	case guardConcat, guardExtend:
		if err := inst.checkConcat(x, y); err != nil {
			return nil, err
		}
		if list, ok := x.(*starlark.List); ok && w.g.op == guardExtend {
			if it, ok := y.(starlark.Iterable); ok {
				return extendInPlace(list, it)
			}
		}
	}
	return starlark.Binary(op, x, y)
}

// extendInPlace is the interpreter's `list += iterable`, which extends the
// list itself (another name for the list sees the new elements).
func extendInPlace(list *starlark.List, y starlark.Iterable) (starlark.Value, error) {
	var elems []starlark.Value
	it := y.Iterate()
	var v starlark.Value
	for it.Next(&v) {
		elems = append(elems, v)
	}
	it.Done() // before appending: y may be list itself
	for _, v := range elems {
		if err := list.Append(v); err != nil {
			// "cannot append to frozen list" as the interpreter says it.
			return nil, fmt.Errorf("%s", strings.Replace(err.Error(), "append to", "apply += to", 1))
		}
	}
	return list, nil
}

// operandGuards returns the hidden guards by predeclared name, bound to
// inst (nil: no budget).
func operandGuards(inst *instance) map[string]*operandGuard {
	return map[string]*operandGuard{
		concatName:  {op: guardConcat, inst: inst},
		extendName:  {op: guardExtend, inst: inst},
		nestingName: {op: guardFormat, inst: inst},
	}
}

// operandGuardNames are the guards operandGuards binds per generation.
var operandGuardNames = operandGuards(nil)

// instancePredeclared returns the predeclared names of inst's modules:
// Predeclared with the operator guards bound to inst's memory budget.
func instancePredeclared(inst *instance) starlark.StringDict {
	d := maps.Clone(predeclared)
	for name, g := range operandGuards(inst) {
		d[name] = g
	}
	return d
}

// index is the expression G[operand] of the guard called name, at pos
// (where its errors are reported). G is the module global aliasing the
// predeclared guard (aliases).
func (g *repeatRewriter) index(pos syntax.Position, name string, operand syntax.Expr) syntax.Expr {
	if !slices.Contains(g.used, name) {
		g.used = append(g.used, name)
	}
	return &syntax.IndexExpr{X: &syntax.Ident{NamePos: pos, Name: aliasPrefix + name}, Lbrack: pos, Y: operand, Rbrack: pos}
}

// aliases are the statements that bind, at the top of the module, a
// global to each guard the file uses: `_+ = +`. Code reads a global by
// its index, where a predeclared name costs a map lookup by name at every
// use. The leading underscore keeps them out of load() (names starting
// with one are not exported); they are not identifiers, so plugin source
// cannot name them.
func (g *repeatRewriter) aliases(file string) []syntax.Stmt {
	var stmts []syntax.Stmt
	pos := syntax.MakePosition(&file, 1, 1)
	for _, name := range g.used {
		stmts = append(stmts, &syntax.AssignStmt{OpPos: pos, Op: syntax.EQ,
			LHS: &syntax.Ident{NamePos: pos, Name: aliasPrefix + name}, RHS: &syntax.Ident{NamePos: pos, Name: name}})
	}
	return stmts
}

// aliasPrefix starts the name of a guard's module global.
const aliasPrefix = "_"
