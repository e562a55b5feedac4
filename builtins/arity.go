package builtins

import (
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/contrib"
)

// Activation reports a callback whose parameters cannot take what the host
// passes (CallbackArity) as `crystal-star check` does, at the def's name,
// and leaves its contribution out: every call of it would fail, and a
// plugin that looks active while each call fails hides the mistake until
// a model calls the tool.

// ArityMessage returns the CallbackArity message for a function called
// name (a lambda when lambda is set) that takes required to most
// positional arguments (most < 0: any number) when cb passes len(cb.Params),
// and false when the call fits. check and activation share it.
func ArityMessage(name string, lambda bool, required, most int, cb *Callback) (string, bool) {
	n := len(cb.Params)
	if required <= n && (most < 0 || n <= most) {
		return "", false
	}
	call := strings.Join(cb.Params, ", ")
	decl := name + "(" + call + ")"
	if lambda {
		decl = "lambda " + call + ": ..."
	}
	return name + " takes " + arityText(required, most) + ", but as " + cb.What + " the host calls it with " +
		strconv.Itoa(n) + " (" + call + "); declare it as " + decl, true
}

func arityText(required, most int) string {
	switch {
	case most < 0:
		return "at least " + paramCount(required)
	case required == most:
		return paramCount(required)
	}
	return paramCount(required) + " to " + strings.TrimSuffix(paramCount(most), " parameters")
}

func paramCount(n int) string {
	if n == 1 {
		return "1 parameter"
	}
	return strconv.Itoa(n) + " parameters"
}

// funcArity returns how many positional arguments fn takes: required, at
// most (-1: any number). Keyword-only parameters are not counted, as in
// check.
func funcArity(fn *starlark.Function) (required, most int) {
	most = fn.NumParams() - fn.NumKwonlyParams()
	if fn.HasVarargs() {
		most--
	}
	if fn.HasKwargs() {
		most--
	}
	for i := range most {
		if fn.ParamDefault(i) == nil {
			required++
		}
	}
	if fn.HasVarargs() {
		return required, -1
	}
	return required, most
}

// arityFits reports whether fn can take what cb passes; if not, it reports
// CallbackArity at the def. Builtins and other callables are not judged.
func (inst *instance) arityFits(v starlark.Callable, cb *Callback) bool {
	fn, ok := v.(*starlark.Function)
	if !ok {
		return true
	}
	required, most := funcArity(fn)
	msg, bad := ArityMessage(fn.Name(), fn.Name() == "lambda", required, most, cb)
	if !bad {
		return true
	}
	pos := fn.Position()
	if name, ok := inst.defNames[pos]; ok {
		pos = name
	}
	inst.staging.Report(contrib.CallbackArity, posOf(pos), "%s", msg)
	return false
}

// entryArityFits checks the callbacks of a contribute() entry against its
// constructor's signature (shapes.go).
func (inst *instance) entryArityFits(e *entry) bool {
	sig := LookupSignature(e.kind)
	if sig == nil {
		return true
	}
	fits := true
	for _, p := range sig.Params {
		if p.Callback == nil {
			continue
		}
		var fn starlark.Callable
		switch spec, ok := e.extra.(factorySpec); {
		case !ok && p.Required:
			fn = e.fn
		case ok && p.Name == "create":
			fn = spec.create
		case ok && p.Name == "create_multimodal":
			fn = spec.multimodal
		}
		if fn != nil && !inst.arityFits(fn, p.Callback) {
			fits = false
		}
	}
	return fits
}

// recordDefs fills defNames from f.
func (c *bundleCompiler) recordDefs(f *syntax.File) {
	if c.defNames == nil {
		c.defNames = map[syntax.Position]syntax.Position{}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if d, ok := n.(*syntax.DefStmt); ok {
			c.defNames[d.Def] = d.Name.NamePos
		}
		return true
	})
}
