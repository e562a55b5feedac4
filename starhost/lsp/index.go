package lsp

import (
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	protocol "github.com/tliron/glsp/protocol_3_16"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// This file gives the requests that need to know the author's code
// (hover and completion of their names, ctx. by callback kind, signature
// help, references, rename, code actions) the parsed, resolved Starlark of
// the whole bundle: each .star file of the bundle snapshot, the editor's
// text in place of a file's, parsed in the host's dialect and resolved
// against the host's predeclared names, with check's account of which
// function serves which callback (check.Callbacks). A file being edited
// rarely parses: the line at the cursor, then each line the parser stops
// at, is replaced by `pass` at its indentation (a few times) before the
// file is given up.

// index is the view of the bundle's code that requests share while no
// file of the bundle changes (indexCache).
type index struct {
	f     *files
	trees map[string]*syntax.File // by bundle-relative path
	texts map[string]string       // the text each tree was parsed from (before patching)
	lines map[string][]string     // texts split after each "\n"
	// patched holds the files that parsed only once patched (parseTolerant).
	patched map[string]bool
	// outside is the path of the file asked about when it is in no
	// plugin directory (its rel is its base name).
	outside string
	roles   map[syntax.Node][]*builtins.Callback
	parsed  *atomic.Int64 // counts the files parsed (indexCache.parsed)
}

// indexOf returns the index of the bundle around the file at path, with
// typing the position being typed at in it (nil for none), and path's
// bundle-relative name. An index is built once per version of the
// bundle's files (indexCache): hover, references and the rest on an
// unchanged document reuse it, and a position being typed at needs its
// own only when the file does not parse as it is.
func (s *server) indexOf(path string, typing *protocol.Position) (*index, string) {
	plain := indexKey{path: path}
	if e, ok := s.indexes.get(plain); ok && (typing == nil || !e.ix.patched[e.rel]) {
		return e.ix, e.rel
	}
	key := plain
	if typing != nil {
		key.typing, key.typed = *typing, true
		if e, ok := s.indexes.get(key); ok {
			return e.ix, e.rel
		}
	}
	gen := s.indexes.generation()
	ix, rel := s.buildIndex(path, typing)
	if !ix.patched[rel] {
		key = plain // the position typed at changed nothing
	}
	s.indexes.put(key, indexEntry{ix: ix, rel: rel}, gen)
	return ix, rel
}

// buildIndex parses the bundle around the file at path (indexOf).
func (s *server) buildIndex(path string, typing *protocol.Position) (*index, string) {
	f := s.filesOf(path)
	ix := newIndex(f)
	ix.parsed = &s.indexes.parsed
	rel, ok := f.rel(path)
	if !ok {
		rel, ix.outside = filepath.Base(path), path
	}
	if b, err := f.bundle(); err == nil && f.dir != "" {
		for name := range b.Files() {
			if strings.HasSuffix(name, ".star") && name != rel {
				text, _ := f.text(filepath.Join(f.dir, filepath.FromSlash(name)))
				ix.add(name, text, -1, 0)
			}
		}
	}
	text, _ := f.text(path)
	if typing != nil {
		ix.add(rel, text, int(typing.Line), int(typing.Character))
	} else {
		ix.add(rel, text, -1, 0)
	}
	ix.roles = check.Callbacks(check.Bundle{Files: ix.trees})
	return ix, rel
}

// indexCache keeps the indexes of a session by the file asked about (and
// the position typed at, when that file parses only patched). Any change
// to a file of a plugin (didOpen, didChange, didSave, didClose) drops that
// plugin's indexes; a change the editor's file watcher reports drops them
// all. An index built while a change arrived is not kept.
type indexCache struct {
	mu     sync.Mutex
	m      map[indexKey]indexEntry
	gen    uint64       // counts the changes
	parsed atomic.Int64 // files parsed into indexes, for tests
}

type indexKey struct {
	path   string
	typing protocol.Position
	typed  bool
}

type indexEntry struct {
	ix  *index
	rel string
}

// maxIndexes bounds the cache; when full it starts over.
const maxIndexes = 64

func (c *indexCache) get(k indexKey) (indexEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	return e, ok
}

func (c *indexCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

func (c *indexCache) put(k indexKey, e indexEntry, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return // a file changed while it was built
	}
	if c.m == nil || len(c.m) >= maxIndexes {
		c.m = map[indexKey]indexEntry{}
	}
	c.m[k] = e
}

// drop forgets the indexes of the plugin in dir, or of path when it is in
// no plugin; dir "" and path "" forget them all.
func (c *indexCache) drop(dir, path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for k, e := range c.m {
		if (dir == "" && path == "") || (dir != "" && e.ix.f.dir == dir) || k.path == path {
			delete(c.m, k)
		}
	}
}

func newIndex(f *files) *index {
	return &index{f: f, trees: map[string]*syntax.File{}, texts: map[string]string{}, lines: map[string][]string{},
		patched: map[string]bool{}}
}

// line returns the 0-based line i of file, without its line ending.
func (ix *index) line(file string, i int) string {
	ls := ix.lines[file]
	if i < 0 || i >= len(ls) {
		return ""
	}
	return strings.TrimRight(ls[i], "\r\n")
}

// add parses and resolves one file, typed in at line and UTF-16
// character char (line -1: none).
func (ix *index) add(rel, text string, line, char int) {
	if ix.parsed != nil {
		ix.parsed.Add(1)
	}
	t, patched := parseTolerant(rel, text, line, char)
	ix.patched[rel] = patched
	if t != nil {
		_ = resolve.File(t, builtins.IsPredeclared, isUniversal) // an undefined name stays Undefined
		ix.trees[rel] = t
		ix.texts[rel] = text
		ix.lines[rel] = strings.SplitAfter(text, "\n")
	}
}

func isUniversal(name string) bool { _, ok := starlark.Universe[name]; return ok }

// parseTolerant parses text in the host's dialect; when it does not parse,
// it tries again with what is being typed at the cursor blanked (".name"
// after an expression, so that `lambda ctx: ctx.` reads `lambda ctx: ctx`),
// then with the line being typed, then each line the parser stops at,
// replaced by `pass`. It returns nil when that does not help, and whether
// the text was patched.
func parseTolerant(name, text string, line, char int) (*syntax.File, bool) {
	lines := strings.Split(text, "\n")
	if line >= len(lines) {
		line = -1
	}
	blanked := false
	for try := 0; try < 6; try++ {
		t, err := builtins.Dialect.Parse(name, strings.Join(lines, "\n"), 0)
		if err == nil {
			return t, try > 0
		}
		if line >= 0 && !blanked {
			blanked = true
			if l, ok := blankMember(lines[line], char); ok {
				lines[line] = l
				continue
			}
		}
		bad := line
		var se syntax.Error
		if line < 0 {
			if !errors.As(err, &se) || se.Pos.Line < 1 || int(se.Pos.Line) > len(lines) {
				return nil, true
			}
			bad = int(se.Pos.Line) - 1
		}
		l := lines[bad]
		lines[bad] = l[:len(l)-len(strings.TrimLeft(l, " \t"))] + "pass"
		if bad == line {
			line = -1
		}
	}
	return nil, true
}

// blankMember replaces with spaces the ".name" being typed before UTF-16
// character char of l, keeping every column in place.
func blankMember(l string, char int) (string, bool) {
	b := byteOfUTF16(l, char)
	j := b
	for j > 0 && isWord(rune(l[j-1])) {
		j--
	}
	if j == 0 || l[j-1] != '.' {
		return l, false
	}
	return l[:j-1] + strings.Repeat(" ", b-j+1) + l[b:], true
}

// abs returns the path of a bundle-relative file.
func (ix *index) abs(rel string) string {
	if ix.outside != "" {
		return ix.outside
	}
	return filepath.Join(ix.f.dir, filepath.FromSlash(rel))
}

// identAt returns the identifier of tree at the 0-based line and rune
// column col, if any.
func identAt(t *syntax.File, line, col int) *syntax.Ident {
	var found *syntax.Ident
	syntax.Walk(t, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		id, ok := n.(*syntax.Ident)
		if ok && int(id.NamePos.Line) == line+1 {
			start := int(id.NamePos.Col) - 1
			if col >= start && col <= start+len([]rune(id.Name)) {
				found = id
			}
		}
		return true
	})
	return found
}

// runeCol returns the 0-based rune column of a UTF-16 character offset in
// line.
func runeCol(line string, char int) int {
	return len([]rune(line[:byteOfUTF16(line, char)]))
}

// lineOf returns the 0-based line of text.
func lineOf(text string, line int) string {
	lines := strings.Split(text, "\n")
	if line < 0 || line >= len(lines) {
		return ""
	}
	return strings.TrimRight(lines[line], "\r")
}

// symbol is what an identifier stands for.
type symbol struct {
	// file and name: a top-level name of the bundle — defined in file,
	// or loaded into it from elsewhere when loaded is set.
	file, name string
	// local is the first binding of a parameter or local variable
	// (references stay in its file), nil for a top-level name.
	local  *syntax.Ident
	loaded bool // name is bound by load() in file but defined nowhere in the bundle
}

// symbolOf returns what id in file rel stands for: a top-level name
// (followed through load() to the file that defines it), a local; ok is
// false for a predeclared, universal or undefined name and a keyword.
func (ix *index) symbolOf(rel string, id *syntax.Ident) (symbol, bool) {
	b, _ := id.Binding.(*resolve.Binding)
	if b == nil {
		if ld, i := ix.loadOf(rel, id); ld != nil { // a load's "name" string
			return ix.follow(rel, ld.To[i].Name), true
		}
		return symbol{}, false
	}
	switch b.Scope {
	case resolve.Global:
		return symbol{file: rel, name: id.Name}, true
	case resolve.Local, resolve.Cell, resolve.Free:
		if ld, _ := ix.loadOf(rel, b.First); ld != nil {
			return ix.follow(rel, b.First.Name), true
		}
		return symbol{file: rel, name: id.Name, local: b.First}, true
	}
	return symbol{}, false
}

// loadOf returns the load statement of rel whose To or From holds id.
func (ix *index) loadOf(rel string, id *syntax.Ident) (*syntax.LoadStmt, int) {
	t := ix.trees[rel]
	if t == nil || id == nil {
		return nil, -1
	}
	for _, st := range t.Stmts {
		if ld, ok := st.(*syntax.LoadStmt); ok {
			for i := range ld.To {
				if ld.To[i] == id || ld.From[i] == id {
					return ld, i
				}
			}
		}
	}
	return nil, -1
}

// follow returns the top-level name local of file rel, followed through
// load() to the file that defines it.
func (ix *index) follow(rel, local string) symbol {
	for range 8 { // load chains are short; a cycle is the compiler's to report
		t := ix.trees[rel]
		if t == nil {
			break
		}
		next := ""
		for _, st := range t.Stmts {
			if ld, ok := st.(*syntax.LoadStmt); ok {
				for i := range ld.To {
					if ld.To[i].Name == local {
						if target, err := starhost.ResolveLoad(rel, ld.ModuleName()); err == nil {
							next, local = target, ld.From[i].Name
						}
					}
				}
			}
		}
		if next == "" {
			return symbol{file: rel, name: local}
		}
		if ix.trees[next] == nil {
			return symbol{file: next, name: local, loaded: true}
		}
		rel = next
	}
	return symbol{file: rel, name: local, loaded: true}
}

// definition returns the statement of file that defines the top-level
// name: a def, an assignment, or nil.
func (ix *index) definition(file, name string) syntax.Stmt {
	t := ix.trees[file]
	if t == nil {
		return nil
	}
	for _, st := range t.Stmts {
		switch st := st.(type) {
		case *syntax.DefStmt:
			if st.Name.Name == name {
				return st
			}
		case *syntax.AssignStmt:
			if id, ok := st.LHS.(*syntax.Ident); ok && id.Name == name && st.Op == syntax.EQ {
				return st
			}
		}
	}
	return nil
}

// enclosing returns the innermost def or lambda of t around the 0-based
// line and rune column, or nil at the top level.
func enclosing(t *syntax.File, line, col int) (node syntax.Node, params []syntax.Expr) {
	pos := syntax.MakePosition(nil, int32(line+1), int32(col+1))
	before := func(a, b syntax.Position) bool {
		return a.Line < b.Line || (a.Line == b.Line && a.Col <= b.Col)
	}
	syntax.Walk(t, func(n syntax.Node) bool {
		var ps []syntax.Expr
		switch n := n.(type) {
		case *syntax.DefStmt:
			ps = n.Params
		case *syntax.LambdaExpr:
			ps = n.Params
		default:
			return true
		}
		start, end := n.Span()
		if n, ok := n.(*syntax.DefStmt); ok && len(n.Body) > 0 {
			end = lastLine(n)
		}
		if before(start, pos) && before(pos, end) {
			node, params = n, ps
		}
		return true
	})
	return node, params
}

// lastLine is the end of a def: the end of its last line, so that a cursor
// after the last statement's text, on its line, is inside.
func lastLine(d *syntax.DefStmt) syntax.Position {
	_, end := d.Body[len(d.Body)-1].Span()
	return syntax.MakePosition(nil, end.Line, 1<<30)
}

// firstParam is the name of a function's first parameter, or "".
func firstParam(params []syntax.Expr) string {
	if len(params) == 0 {
		return ""
	}
	if id, ok := params[0].(*syntax.Ident); ok {
		return id.Name
	}
	return ""
}

// topNames lists the names of rel's top level: defs, assignments and the
// names load() binds, in order of appearance.
func (ix *index) topNames(rel string) []string {
	t := ix.trees[rel]
	if t == nil {
		return nil
	}
	var out []string
	add := func(n string) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, st := range t.Stmts {
		switch st := st.(type) {
		case *syntax.DefStmt:
			add(st.Name.Name)
		case *syntax.AssignStmt:
			if id, ok := st.LHS.(*syntax.Ident); ok {
				add(id.Name)
			}
		case *syntax.LoadStmt:
			for _, to := range st.To {
				add(to.Name)
			}
		}
	}
	return out
}

// contributeCall returns the top-level contribute(...) call of the bundle
// and its file, or nil.
func (ix *index) contributeCall() (string, *syntax.CallExpr) {
	for _, file := range slices.Sorted(maps.Keys(ix.trees)) {
		for _, st := range ix.trees[file].Stmts {
			x, ok := st.(*syntax.ExprStmt)
			if !ok {
				continue
			}
			call, ok := x.X.(*syntax.CallExpr)
			if !ok {
				continue
			}
			if id, ok := call.Fn.(*syntax.Ident); ok && id.Name == "contribute" {
				if b, ok := id.Binding.(*resolve.Binding); !ok || b == nil || b.Scope == resolve.Predeclared {
					return file, call
				}
			}
		}
	}
	return "", nil
}
