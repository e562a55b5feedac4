package lsp

import (
	"fmt"
	"slices"
	"strings"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// This file answers hover and completion for the author's own names: the
// top-level defs and variables of the bundle's files, those a load()
// brings, the parameters and locals of the function at the cursor; and
// completion after ctx. with the fields of the callback kind the function
// serves (check.Callbacks, check.CtxFields: what check accepts).

// hoverOwn documents the author's top-level name at the cursor of rel, or
// returns "" when the name there is not one.
func (ix *index) hoverOwn(rel string, line, char int) string {
	t := ix.trees[rel]
	if t == nil {
		return ""
	}
	id := identAt(t, line, runeCol(ix.line(rel, line), char))
	if id == nil {
		return ""
	}
	sym, ok := ix.symbolOf(rel, id)
	if !ok {
		return ""
	}
	if sym.local != nil { // a callback's ctx: the fields of its kind
		col := runeCol(ix.line(rel, line), char)
		if first, roles := ix.callbackAt(rel, line, col); first == id.Name && len(check.CtxKinds(roles)) > 0 {
			return ctxRootHover(check.CtxKinds(roles), rolesDoc(roles))
		}
		return ""
	}
	return ix.describe(sym, rel)
}

// describe is the hover text of a top-level symbol seen from file rel.
func (ix *index) describe(sym symbol, rel string) string {
	var b strings.Builder
	st := ix.definition(sym.file, sym.name)
	switch st := st.(type) {
	case *syntax.DefStmt:
		b.WriteString("```python\n" + ix.header(sym.file, st) + "\n```")
		if doc := docstring(st.Body); doc != "" {
			b.WriteString("\n\n" + doc)
		}
		if roles := ix.roles[st]; len(roles) > 0 {
			b.WriteString("\n\n" + rolesDoc(roles))
		}
	case *syntax.AssignStmt:
		b.WriteString("```python\n" + sym.name + " = " + clip(ix.source(sym.file, st.RHS)) + "\n```")
		if l, ok := st.RHS.(*syntax.LambdaExpr); ok {
			if roles := ix.roles[l]; len(roles) > 0 {
				b.WriteString("\n\n" + rolesDoc(roles))
			}
		}
	default:
		if sym.loaded {
			return "`" + sym.name + "`: loaded from " + sym.file + ", which is not a file of the plugin's bundle"
		}
		return ""
	}
	where := sym.file
	if st != nil {
		start, _ := st.Span()
		where = fmt.Sprintf("%s:%d", sym.file, start.Line)
	}
	if sym.file != rel {
		b.WriteString("\n\nLoaded from `" + where + "`.")
	} else {
		b.WriteString("\n\nDefined at `" + where + "`.")
	}
	return b.String()
}

// rolesDoc says which callbacks a function serves and what its ctx has.
func rolesDoc(roles []*builtins.Callback) string {
	var whats []string
	for _, cb := range roles {
		if !slices.Contains(whats, cb.What) {
			whats = append(whats, cb.What)
		}
	}
	doc := "Serves as " + strings.Join(whats, " and ") + "."
	if kinds := check.CtxKinds(roles); len(kinds) > 0 {
		var names []string
		for _, m := range check.CtxFields(kinds) {
			names = append(names, "`"+m.Name+"`")
		}
		doc += " Its ctx has " + strings.Join(names, ", ") + "."
	}
	return doc
}

// header is `def name(params)` as written.
func (ix *index) header(file string, d *syntax.DefStmt) string {
	params := make([]string, len(d.Params))
	for i, p := range d.Params {
		params[i] = ix.source(file, p)
	}
	return "def " + d.Name.Name + "(" + strings.Join(params, ", ") + ")"
}

// source returns the text of a node of file.
func (ix *index) source(file string, n syntax.Node) string {
	start, end := n.Span()
	lines := ix.lines[file]
	if start.Line < 1 || int(end.Line) > len(lines) || end.Line < start.Line {
		return ""
	}
	var b strings.Builder
	for l := start.Line; l <= end.Line; l++ {
		r := []rune(lines[l-1])
		from, to := 0, len(r)
		if l == start.Line {
			from = min(max(int(start.Col)-1, 0), len(r))
		}
		if l == end.Line {
			to = min(max(int(end.Col)-1, from), len(r))
		}
		b.WriteString(string(r[from:to]))
	}
	return b.String()
}

// clip keeps a value's text short enough for a hover.
func clip(s string) string {
	if lines := strings.Split(s, "\n"); len(lines) > 6 {
		s = strings.Join(lines[:6], "\n") + "\n    ..."
	}
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}

// docstring is the string a function body opens with, dedented.
func docstring(body []syntax.Stmt) string {
	if len(body) == 0 {
		return ""
	}
	x, ok := body[0].(*syntax.ExprStmt)
	if !ok {
		return ""
	}
	s, ok := check.StringLiteral(x.X)
	if !ok {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "\n")
}

// ownCompletions are the names the author wrote that are visible at the
// cursor: the parameters and locals of the enclosing functions, then the
// file's top-level names (loaded ones too).
func (ix *index) ownCompletions(rel string, line, col int) []Completion {
	t := ix.trees[rel]
	if t == nil {
		return nil
	}
	var out []Completion
	seen := map[string]bool{}
	add := func(c Completion) {
		if !seen[c.Label] && isIdent(c.Label) {
			seen[c.Label] = true
			out = append(out, c)
		}
	}
	for _, name := range localsAt(t, line, col) {
		add(Completion{Label: name, Detail: "local", Kind: KindVariable})
	}
	for _, name := range ix.topNames(rel) {
		sym := ix.follow(rel, name)
		c := Completion{Label: name, Kind: KindVariable}
		switch st := ix.definition(sym.file, sym.name).(type) {
		case *syntax.DefStmt:
			c.Kind, c.Detail, c.Doc = KindFunction, ix.header(sym.file, st), docstring(st.Body)
		case *syntax.AssignStmt:
			c.Detail = clip(name + " = " + ix.source(sym.file, st.RHS))
		}
		if sym.file != rel {
			c.Doc = strings.TrimSpace(c.Doc + "\n\nLoaded from `" + sym.file + "`.")
		}
		add(c)
	}
	return out
}

// localsAt lists the parameters and assigned names of each def and lambda
// around the cursor, innermost first.
func localsAt(t *syntax.File, line, col int) []string {
	var scopes [][]string
	pos := syntax.MakePosition(nil, int32(line+1), int32(col+1))
	inside := func(n syntax.Node) bool {
		start, end := n.Span()
		if d, ok := n.(*syntax.DefStmt); ok && len(d.Body) > 0 {
			end = lastLine(d)
		}
		return !before(pos, start) && !before(end, pos)
	}
	syntax.Walk(t, func(n syntax.Node) bool {
		var names []string
		switch n := n.(type) {
		case *syntax.DefStmt:
			if !inside(n) {
				return false
			}
			names = paramNames(n.Params)
			for _, st := range n.Body {
				syntax.Walk(st, func(m syntax.Node) bool {
					switch m := m.(type) {
					case *syntax.DefStmt, *syntax.LambdaExpr:
						return false
					case *syntax.AssignStmt:
						names = append(names, boundNames(m.LHS)...)
					case *syntax.ForStmt:
						names = append(names, boundNames(m.Vars)...)
					}
					return true
				})
			}
		case *syntax.LambdaExpr:
			if !inside(n) {
				return false
			}
			names = paramNames(n.Params)
		default:
			return true
		}
		scopes = append([][]string{names}, scopes...)
		return true
	})
	var out []string
	for _, s := range scopes {
		out = append(out, s...)
	}
	return out
}

func before(a, b syntax.Position) bool {
	return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
}

func paramNames(params []syntax.Expr) []string {
	var out []string
	for _, p := range params {
		if name := check.ParamName(p); name != "" {
			out = append(out, name)
		}
	}
	return out
}

func boundNames(e syntax.Expr) []string {
	switch e := e.(type) {
	case *syntax.Ident:
		return []string{e.Name}
	case *syntax.TupleExpr:
		var out []string
		for _, x := range e.List {
			out = append(out, boundNames(x)...)
		}
		return out
	case *syntax.ListExpr:
		var out []string
		for _, x := range e.List {
			out = append(out, boundNames(x)...)
		}
		return out
	case *syntax.ParenExpr:
		return boundNames(e.X)
	}
	return nil
}

// isIdent reports whether s can be written as a name: the predeclared
// table also holds the guards of operators (`*`, `+`, `<format>`), which
// are no completion.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !isWord(r) || (i == 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// callbackAt returns the first parameter of the innermost function around
// the cursor and the callbacks check says it serves.
func (ix *index) callbackAt(rel string, line, col int) (string, []*builtins.Callback) {
	t := ix.trees[rel]
	if t == nil {
		return "", nil
	}
	node, params := enclosing(t, line, col)
	if node == nil {
		return "", nil
	}
	return firstParam(params), ix.roles[node]
}

// ctxKindsAt returns the ctx kinds of the function at the cursor whose
// first parameter is root, and whether root is such a ctx at all: a
// callback's first parameter, whatever its name, or a first parameter
// called ctx (then every kind is possible, as check assumes).
func (ix *index) ctxKindsAt(rel, root string, line, col int) ([]builtins.CtxKind, bool) {
	first, roles := ix.callbackAt(rel, line, col)
	if first != root || len(roles) == 0 {
		return nil, root == "ctx"
	}
	kinds := check.CtxKinds(roles)
	return kinds, len(kinds) > 0
}

// loadNameCompletions completes a name string of load("module", "…"): the
// public top-level names of the loaded file.
func (ix *index) loadNameCompletions(rel string, c cursor) ([]Completion, bool) {
	open := strings.LastIndex(c.text[:c.offset], "load(")
	if open < 0 || strings.Contains(c.text[open:c.offset], ")") {
		return nil, false
	}
	m := loadRE.FindStringSubmatch(c.text[open:c.offset] + `")`)
	if m == nil || !strings.Contains(c.text[open:c.offset], ",") {
		return nil, false
	}
	target, err := starhost.ResolveLoad(rel, m[1])
	if err != nil {
		return []Completion{}, true
	}
	var out []Completion
	for _, name := range ix.topNames(target) {
		if strings.HasPrefix(name, "_") || ix.definition(target, name) == nil {
			continue // private, or itself loaded (load bindings are not exported)
		}
		comp := Completion{Label: name, Kind: KindVariable}
		if d, ok := ix.definition(target, name).(*syntax.DefStmt); ok {
			comp.Kind, comp.Detail, comp.Doc = KindFunction, ix.header(target, d), docstring(d.Body)
		}
		out = append(out, comp)
	}
	return out, true
}
