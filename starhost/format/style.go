package format

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/bazelbuild/buildtools/build"
	"github.com/bazelbuild/buildtools/warn"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// The style warnings are check's: a program that imports this package
// gets them in check.Plugins and the language server.
func init() { check.RegisterStyle(LintTree) }

// styleRule is one buildifier warning `crystal-star check` runs, with the
// stable code it is reported under.
type styleRule struct {
	// Name is buildifier's category, e.g. "unused-variable"; a
	// `# buildifier: disable=NAME` comment also silences it.
	Name string
	Code contrib.Code
	// message, when set, rewrites buildifier's first message line for
	// plugin authors (buildifier speaks of Bazel).
	message func(string) string
}

// styleWarnings is the curated set of buildifier warnings that make sense
// outside Bazel, in documentation order (docs/check.md). Warnings about
// rules, providers, BUILD files and docstrings are left out, and so are
// print (print is a debug note here) and redefined-variable (the plugin
// dialect already refuses to reassign a global).
var styleWarnings = []styleRule{
	{Name: "unused-variable", Code: contrib.StyleUnusedVariable},
	{Name: "load", Code: contrib.StyleUnusedLoad},
	{Name: "unreachable", Code: contrib.StyleUnreachable},
	{Name: "no-effect", Code: contrib.StyleNoEffect},
	{Name: "uninitialized", Code: contrib.StyleUninitialized},
	{Name: "return-value", Code: contrib.StyleReturnValue},
	{Name: "string-iteration", Code: contrib.StyleStringIteration, message: func(string) string {
		return "strings are not iterable in Starlark; iterate over s.elems() instead"
	}},
	{Name: "integer-division", Code: contrib.StyleIntegerDivision, message: func(m string) string {
		op := "/"
		if strings.Contains(m, `"/="`) {
			op = "/="
		}
		return fmt.Sprintf("%q divides into a float in Starlark; use %q for integer division", op, "/"+op)
	}},
	{Name: "dict-concatenation", Code: contrib.StyleDictConcatenation, message: func(string) string {
		return `dicts cannot be added with "+" in Starlark; use d1 | d2 or d.update()`
	}},
	{Name: "dict-method-named-arg", Code: contrib.StyleDictMethodNamedArg},
	{Name: "confusing-name", Code: contrib.StyleConfusingName},
	{Name: "name-conventions", Code: contrib.StyleNameConventions, message: func(m string) string {
		// Buildifier's text also offers Bazel's UpperCamelCaseInfo providers.
		if name, ok := quotedName(m); ok {
			return fmt.Sprintf("variable name %s should be lower_snake_case (variables) or UPPER_SNAKE_CASE (constants)", name)
		}
		return m
	}},
}

// styleNames are the buildifier categories to run, checked against the
// library's own table at init: warn.FileWarnings calls os.Exit for a name
// it does not know, so only names present in warn.FileWarningMap (which
// needs no file reader) are ever passed to it. unknownStyle lists the names
// dropped, for a test to report.
var styleNames, unknownStyle = func() (known, unknown []string) {
	for _, w := range styleWarnings {
		if _, ok := warn.FileWarningMap[w.Name]; ok {
			known = append(known, w.Name)
		} else {
			unknown = append(unknown, w.Name)
		}
	}
	return known, unknown
}()

// unknownStyleWarnings returns the names of styleWarnings that this
// version of buildtools does not know; they are never run. A test keeps it
// empty.
func unknownStyleWarnings() []string { return slices.Clone(unknownStyle) }

// quotedName returns the first double-quoted word of a message, quotes
// included.
func quotedName(m string) (string, bool) {
	i := strings.IndexByte(m, '"')
	if i < 0 {
		return "", false
	}
	j := strings.IndexByte(m[i+1:], '"')
	if j < 0 {
		return "", false
	}
	return m[i : i+j+2], true
}

func styleWarning(name string) (styleRule, bool) {
	for _, w := range styleWarnings {
		if w.Name == name {
			return w, true
		}
	}
	return styleRule{}, false
}

// LintTree runs styleWarnings over one Starlark file, already parsed from
// src with syntax.RetainComments (the compiler's parse, so check parses each
// file once), and returns a warning per finding, at its file:line:col, for
// plugin. A file with a while loop yields nothing: buildifier, whose
// warnings these are, has no while. An unused parameter is not reported:
// callbacks receive (ctx, args) whether they use them or not; nor is an
// unused loop variable (`for i in range(3)` has no name-free form) or a
// local name starting with `_`, the usual way to say "unused on purpose"
// (an unused private global `_x` still is). LintTree
// never exits the process; a panic inside the library is recovered and
// yields nothing. It is safe for concurrent use and does not modify f.
func LintTree(plugin, file string, tree *syntax.File, src []byte) (diags []contrib.Diagnostic) {
	defer func() {
		if recover() != nil {
			diags = nil
		}
	}()
	f, ok := buildTree(tree, src)
	if !ok {
		return nil
	}
	params := parameterPositions(f)
	for pos := range meantUnused(f) {
		params[pos] = true
	}
	for _, fd := range warn.FileWarnings(f, styleNames, nil, warn.ModeWarn, nil) {
		w, ok := styleWarning(fd.Category)
		if !ok || (w.Code == contrib.StyleUnusedVariable && params[fd.Start.Byte]) {
			continue
		}
		msg, _, _ := strings.Cut(fd.Message, "\n")
		if w.message != nil {
			msg = w.message(msg)
		}
		pos := contrib.Pos{File: file, Line: fd.Start.Line, Col: fd.Start.LineRune}
		diags = append(diags, contrib.Diag(w.Code, plugin, pos, "%s", strings.TrimSpace(msg)))
	}
	return diags
}

// parameterPositions returns the byte offsets of every parameter name of
// every def and lambda in f.
func parameterPositions(f *build.File) map[int]bool {
	out := map[int]bool{}
	build.Walk(f, func(x build.Expr, _ []build.Expr) {
		var params []build.Expr
		switch x := x.(type) {
		case *build.DefStmt:
			params = x.Params
		case *build.LambdaExpr:
			params = x.Params
		}
		for _, p := range params {
			if id := paramIdent(p); id != nil {
				out[id.NamePos.Byte] = true
			}
		}
	})
	return out
}

// meantUnused returns the byte offsets of the loop variables of f (for
// statements and comprehension clauses) and of every name starting with _
// inside a def or lambda.
func meantUnused(f *build.File) map[int]bool {
	out := map[int]bool{}
	var vars func(x build.Expr)
	vars = func(x build.Expr) {
		switch x := x.(type) {
		case *build.Ident:
			out[x.NamePos.Byte] = true
		case *build.TupleExpr:
			for _, e := range x.List {
				vars(e)
			}
		case *build.ListExpr:
			for _, e := range x.List {
				vars(e)
			}
		case *build.ParenExpr:
			vars(x.X)
		}
	}
	build.Walk(f, func(x build.Expr, stk []build.Expr) {
		switch x := x.(type) {
		case *build.ForStmt:
			vars(x.Vars)
		case *build.ForClause:
			vars(x.Vars)
		case *build.Ident:
			if strings.HasPrefix(x.Name, "_") && slices.ContainsFunc(stk, isFunction) {
				out[x.NamePos.Byte] = true
			}
		}
	})
	return out
}

func isFunction(x build.Expr) bool {
	switch x.(type) {
	case *build.DefStmt, *build.LambdaExpr:
		return true
	}
	return false
}

func paramIdent(p build.Expr) *build.Ident {
	switch p := p.(type) {
	case *build.Ident:
		return p
	case *build.AssignExpr:
		return paramIdent(p.LHS)
	case *build.UnaryExpr:
		return paramIdent(p.X)
	case *build.TypedIdent:
		return paramIdent(p.Ident)
	}
	return nil
}

// FixStyle returns src formatted as Source formats it with buildifier's
// automatic fix of the style warning code applied everywhere in the file,
// and whether that changes anything: the quick fix of the language server
// for a Style* finding (an unused load is removed, a / on integers becomes
// //). It is false for a code buildifier cannot fix, a file the formatter
// refuses, and a result the plugin dialect could not parse. It is safe for
// concurrent use; a panic inside the library is recovered and yields false.
func FixStyle(name string, src []byte, code contrib.Code) (out []byte, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	i := slices.IndexFunc(styleWarnings, func(w styleRule) bool { return w.Code == code })
	if i < 0 || !slices.Contains(styleNames, styleWarnings[i].Name) {
		return nil, false
	}
	before, err := Source(name, src)
	if err != nil {
		return nil, false
	}
	f, err := build.ParseDefault(name, before)
	if err != nil {
		return nil, false
	}
	warn.FixWarnings(f, []string{styleWarnings[i].Name}, false, nil)
	out = build.Format(f)
	if bytes.Equal(out, before) {
		return nil, false
	}
	if _, err := builtins.Dialect.Parse(name, out, 0); err != nil {
		return nil, false
	}
	return out, true
}
