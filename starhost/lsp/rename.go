package lsp

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/starhost"
)

// This file finds the references of the author's names across the bundle
// and renames them: a top-level name in the file that defines it and in
// every file of the bundle that loads it (the load's "name" string, and
// the loading file's uses when the load does not give it another local
// name), a parameter or local in its function. Names are matched by the
// resolver's bindings, not by spelling: a local that shadows a global is
// another name.

// ref is one occurrence of a name: file and 1-based line and rune column.
type ref struct {
	file      string
	line, col int
	name      string
	// alias: a use under another local name (load("m", alias = "name")):
	// a reference, but not renamed.
	alias bool
}

// references returns every occurrence of sym in the bundle, the definition
// first, in file order.
func (ix *index) references(sym symbol) []ref {
	var out []ref
	seen := map[ref]bool{}
	add := func(file string, id *syntax.Ident, alias bool) {
		r := ref{file: file, line: int(id.NamePos.Line), col: int(id.NamePos.Col), name: id.Name, alias: alias}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	if sym.local != nil {
		ix.walkIdents(sym.file, func(id *syntax.Ident) {
			if b, ok := id.Binding.(*resolve.Binding); ok && b != nil && b.First == sym.local {
				add(sym.file, id, false)
			}
		})
		return out
	}
	ix.walkIdents(sym.file, func(id *syntax.Ident) {
		if b, ok := id.Binding.(*resolve.Binding); ok && b != nil && b.Scope == resolve.Global && id.Name == sym.name {
			add(sym.file, id, false)
		}
	})
	for _, file := range slices.Sorted(maps.Keys(ix.trees)) {
		for _, st := range ix.trees[file].Stmts {
			ld, ok := st.(*syntax.LoadStmt)
			if !ok {
				continue
			}
			if target, err := starhost.ResolveLoad(file, ld.ModuleName()); err != nil || target != sym.file {
				continue
			}
			for i, from := range ld.From {
				if from.Name != sym.name {
					continue
				}
				add(file, from, false)
				to := ld.To[i]
				ix.walkIdents(file, func(id *syntax.Ident) {
					if b, ok := id.Binding.(*resolve.Binding); ok && b != nil && b.First == to && id != from {
						add(file, id, to != from)
					}
				})
			}
		}
	}
	return out
}

// walkIdents calls f for every identifier of file, in order.
func (ix *index) walkIdents(file string, f func(*syntax.Ident)) {
	t := ix.trees[file]
	if t == nil {
		return
	}
	syntax.Walk(t, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok {
			f(id)
		}
		return true
	})
}

// symbolAt returns the author's name at the cursor of rel.
func (ix *index) symbolAt(rel string, line, char int) (symbol, *syntax.Ident, bool) {
	t := ix.trees[rel]
	if t == nil {
		return symbol{}, nil, false
	}
	id := identAt(t, line, runeCol(ix.line(rel, line), char))
	if id == nil {
		return symbol{}, nil, false
	}
	sym, ok := ix.symbolOf(rel, id)
	return sym, id, ok
}

var starlarkKeywords = []string{"and", "break", "continue", "def", "elif", "else", "for", "if", "in", "lambda", "load",
	"not", "or", "pass", "return", "while", "as", "assert", "async", "await", "class", "del", "except", "finally",
	"from", "global", "import", "is", "nonlocal", "raise", "try", "with", "yield"}

// renameEdits returns the edits that rename sym to name: file -> ref to
// rewrite. It refuses a name that is no identifier, a keyword, or already
// taken where the name would be bound.
func (ix *index) renameEdits(sym symbol, name string) ([]ref, error) {
	if !isIdent(name) || slices.Contains(starlarkKeywords, name) {
		return nil, fmt.Errorf("%q is not a name Starlark accepts", name)
	}
	if sym.loaded {
		return nil, fmt.Errorf("%s is defined in %s, which is not a file of the plugin's bundle; only the bundle's names can be renamed", sym.name, sym.file)
	}
	if sym.local == nil && strings.HasPrefix(name, "_") && ix.loadedElsewhere(sym) {
		return nil, fmt.Errorf("%s is loaded by other files; a name starting with _ cannot be loaded", sym.name)
	}
	if sym.local != nil && ix.usedIn(sym, name) {
		return nil, fmt.Errorf("the function of %s uses %s; a parameter or local of that name would hide it", sym.name, name)
	}
	refs := ix.references(sym)
	var out []ref
	for _, r := range refs {
		if r.alias {
			continue
		}
		if sym.local == nil && slices.Contains(ix.topNames(r.file), name) {
			return nil, fmt.Errorf("%s already names something at the top level of %s", name, r.file)
		}
		if t := ix.trees[r.file]; t != nil && slices.Contains(localsAt(t, r.line-1, r.col-1), name) && !r.isBinding(sym) {
			return nil, fmt.Errorf("%s is already a parameter or local where %s is used at %s:%d; it would hide the renamed name", name, sym.name, r.file, r.line)
		}
		out = append(out, r)
	}
	return out, nil
}

// loadedElsewhere reports whether another file loads sym.
func (ix *index) loadedElsewhere(sym symbol) bool {
	for _, r := range ix.references(sym) {
		if r.file != sym.file {
			return true
		}
	}
	return false
}

// isBinding reports whether r is where a local sym is bound (its own
// parameter or first assignment), which the locals around it include.
func (r ref) isBinding(sym symbol) bool {
	return sym.local != nil && r.line == int(sym.local.NamePos.Line) && r.col == int(sym.local.NamePos.Col)
}

// usedIn reports whether the function that binds the local sym reads
// another name spelled name (a global, loaded or predeclared one).
func (ix *index) usedIn(sym symbol, name string) bool {
	t := ix.trees[sym.file]
	if t == nil {
		return false
	}
	fn, _ := enclosing(t, int(sym.local.NamePos.Line)-1, int(sym.local.NamePos.Col)-1)
	if fn == nil {
		return false
	}
	used := false
	syntax.Walk(fn, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && id.Name == name {
			if b, ok := id.Binding.(*resolve.Binding); ok && b != nil {
				used = used || b.Scope == resolve.Global || b.Scope == resolve.Predeclared || b.Scope == resolve.Universal ||
					(b.First != nil && ix.isFileLocal(sym.file, b.First)) // loaded: a cell of the file, free in functions
			}
		}
		return !used
	})
	return used
}

// isFileLocal reports whether first is bound at file level (by load).
func (ix *index) isFileLocal(file string, first *syntax.Ident) bool {
	ld, _ := ix.loadOf(file, first)
	return ld != nil
}
