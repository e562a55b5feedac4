package check

import (
	"maps"
	"slices"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
)

// Callbacks returns the callbacks each def and lambda of b is given as, by
// its *syntax.DefStmt or *syntax.LambdaExpr: what the checks know of a
// function's role (builtins.Callback.Ctx is the ctx it receives). The
// language server asks it to offer after ctx. exactly the fields the checks
// accept. A function passed to no constructor is absent. It is safe for
// concurrent use on distinct trees; the trees are only read.
func Callbacks(b Bundle) map[syntax.Node][]*builtins.Callback {
	c := &checker{b: b, files: map[string]*fileInfo{}, funcs: map[syntax.Node]*function{}}
	for _, path := range slices.Sorted(maps.Keys(b.Files)) {
		c.index(path, b.Files[path])
	}
	for _, path := range slices.Sorted(maps.Keys(c.files)) {
		c.checkCalls(c.files[path])
	}
	out := map[syntax.Node][]*builtins.Callback{}
	for node, fn := range c.funcs {
		if len(fn.uses) > 0 {
			out[node] = fn.uses
		}
	}
	return out
}

// CtxKinds returns the ctx kinds a function given as cbs receives, or nil
// when none of them says (then every kind is possible).
func CtxKinds(cbs []*builtins.Callback) []builtins.CtxKind {
	var kinds []builtins.CtxKind
	for _, cb := range cbs {
		if cb.Ctx != builtins.CtxNone && !slices.Contains(kinds, cb.Ctx) {
			kinds = append(kinds, cb.Ctx)
		}
	}
	return kinds
}

// CtxFields returns the ctx fields a callback of one of kinds may read
// (every field when kinds is empty): the fields the checks accept, in
// alphabetical order.
func CtxFields(kinds []builtins.CtxKind) []builtins.CtxMember {
	var out []builtins.CtxMember
	for _, m := range builtins.CtxMembers() {
		if len(kinds) == 0 || slices.ContainsFunc(kinds, m.Has) {
			out = append(out, m)
		}
	}
	return out
}
