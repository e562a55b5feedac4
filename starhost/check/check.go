// Package check is `crystal-star check`: Plugins finds every mistake in
// plugins that can be found before they run (manifests, compile errors, a
// dry run of each module in a worker process, admission, conflicts, the
// static checks and the style warnings), Watch runs it again after every
// save, and Workers keeps the worker between runs. It reaches the host's
// internals only through starhost/internal/sandbox; the host's root
// package does not import it.
//
// Run holds the static checks, shared with the language server: it walks the syntax trees of a plugin's bundle with the
// constructor signatures and ctx shapes of builtins (generated from the point
// table of contrib) and reports what would only fail when a callback runs —
// a callback with the wrong number of parameters, an evident return value of
// the wrong type, a ctx field that does not exist for the callback or needs
// a capability the manifest lacks, a status field the plugin never
// declared — and every bad constructor call at once, where the dry run stops
// at the first. Run runs no Starlark and reads nothing but the trees it is
// given.
package check

import (
	"maps"
	"slices"

	"go.starlark.net/resolve"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// Bundle is one plugin's Starlark as the checks see it.
type Bundle struct {
	// Plugin is the plugin id diagnostics carry.
	Plugin string
	// Files maps bundle-relative paths to their parse; positions in the
	// trees name the files as diagnostics should show them.
	Files map[string]*syntax.File
	// Capabilities are the manifest's opt-ins.
	Capabilities []string
}

// Result is what the checks found.
type Result struct {
	Diagnostics []contrib.Diagnostic
	// Broken lists the constructor calls found broken, by the position of
	// their opening parenthesis: a dry-run failure at one of them repeats a
	// finding and can be dropped.
	Broken []contrib.Pos
}

// Run checks b. It is safe for concurrent use on distinct trees; the trees
// are only read.
func Run(b Bundle) Result {
	c := &checker{b: b, files: map[string]*fileInfo{}, funcs: map[syntax.Node]*function{}}
	for _, path := range slices.Sorted(maps.Keys(b.Files)) {
		c.index(path, b.Files[path])
	}
	c.collectStatusFields()
	for _, path := range slices.Sorted(maps.Keys(c.files)) {
		c.checkCalls(c.files[path])
	}
	c.checkFunctions()
	c.checkRemote()
	return Result{Diagnostics: c.diags, Broken: c.broken}
}

// checker is one run.
type checker struct {
	b      Bundle
	files  map[string]*fileInfo
	funcs  map[syntax.Node]*function // by *syntax.DefStmt or *syntax.LambdaExpr
	order  []*function
	diags  []contrib.Diagnostic
	broken []contrib.Pos
	// fields are the status field names declared by literals; fieldsKnown
	// is false when some name is not a literal.
	fields      []string
	fieldsKnown bool
	// remote are the tools marked remote = True; sessionStages the
	// positions of session-only attach stages contribute() gives.
	remote        []remoteTool
	sessionStages []syntax.Position
}

// fileInfo indexes one file's top level.
type fileInfo struct {
	path  string
	f     *syntax.File
	defs  map[string]*function // top-level defs and NAME = lambda
	loads map[string]loadRef   // local name -> where it comes from
	other map[string]bool      // other top-level names (not functions)
}

type loadRef struct{ file, name string }

// function is a def or lambda, with the callbacks it serves.
type function struct {
	name   string
	file   *fileInfo
	pos    syntax.Position
	params []syntax.Expr
	body   []syntax.Stmt // a def's
	expr   syntax.Expr   // a lambda's
	uses   []*builtins.Callback
}

func (c *checker) report(code contrib.Code, pos syntax.Position, format string, args ...any) {
	c.diags = append(c.diags, contrib.Diag(code, c.b.Plugin, posOf(pos), format, args...))
}

func posOf(p syntax.Position) contrib.Pos {
	return contrib.Pos{File: p.Filename(), Line: int(p.Line), Col: int(p.Col)}
}

func (c *checker) index(path string, f *syntax.File) {
	fi := &fileInfo{path: path, f: f, defs: map[string]*function{}, loads: map[string]loadRef{}, other: map[string]bool{}}
	c.files[path] = fi
	for _, stmt := range f.Stmts {
		switch s := stmt.(type) {
		case *syntax.DefStmt:
			fi.defs[s.Name.Name] = c.def(fi, s)
		case *syntax.AssignStmt:
			if id, ok := s.LHS.(*syntax.Ident); ok {
				if l, ok := s.RHS.(*syntax.LambdaExpr); ok {
					fi.defs[id.Name] = c.lambda(fi, id.Name, l)
				} else {
					fi.other[id.Name] = true
				}
			}
		case *syntax.LoadStmt:
			target := loadTarget(path, s.ModuleName())
			for i, to := range s.To {
				fi.loads[to.Name] = loadRef{file: target, name: s.From[i].Name}
			}
		}
	}
	// Nested defs and lambdas anywhere can be callbacks too (a lambda
	// written inline in tool(run = lambda ctx, args: ...)).
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.DefStmt:
			c.def(fi, n)
		case *syntax.LambdaExpr:
			c.lambda(fi, "lambda", n)
		}
		return true
	})
}

func (c *checker) def(fi *fileInfo, s *syntax.DefStmt) *function {
	if fn := c.funcs[s]; fn != nil {
		return fn
	}
	fn := &function{name: s.Name.Name, file: fi, pos: s.Name.NamePos, params: s.Params, body: s.Body}
	c.funcs[s] = fn
	c.order = append(c.order, fn)
	return fn
}

func (c *checker) lambda(fi *fileInfo, name string, l *syntax.LambdaExpr) *function {
	if fn := c.funcs[l]; fn != nil {
		return fn
	}
	fn := &function{name: name, file: fi, pos: l.Lambda, params: l.Params, expr: l.Body}
	c.funcs[l] = fn
	c.order = append(c.order, fn)
	return fn
}

// loadTarget resolves a load() module against the loading file, as the
// compiler does (builtins.ResolveLoad); a target outside the bundle is the
// compiler's to report and binds nothing here.
func loadTarget(from, module string) string {
	target, _ := builtins.ResolveLoad(from, module)
	return target
}

// lookupFunc finds the def or lambda a name stands for in fi, following
// load() into other files of the bundle.
func (c *checker) lookupFunc(fi *fileInfo, name string) *function {
	for range 8 { // load chains are short; cycles are the compiler's to report
		if fn := fi.defs[name]; fn != nil {
			return fn
		}
		ref, ok := fi.loads[name]
		if !ok {
			return nil
		}
		if fi = c.files[ref.file]; fi == nil {
			return nil
		}
		name = ref.name
	}
	return nil
}

// predeclaredUse reports whether id refers to the predeclared name, not to
// a global, local or loaded name of the same spelling.
func predeclaredUse(fi *fileInfo, id *syntax.Ident) bool {
	return builtinUse(fi, id, resolve.Predeclared)
}

// universalUse reports whether id refers to a name of Starlark's universe
// (None, True, len, ...), not a name of the file.
func universalUse(fi *fileInfo, id *syntax.Ident) bool { return builtinUse(fi, id, resolve.Universal) }

// builtinUse reports whether id is resolved in scope; for a file the
// resolver did not annotate (it was not compiled), whether the file
// defines, assigns or loads no name of that spelling.
func builtinUse(fi *fileInfo, id *syntax.Ident, scope resolve.Scope) bool {
	if b, ok := id.Binding.(*resolve.Binding); ok && b != nil {
		return b.Scope == scope
	}
	_, def := fi.defs[id.Name]
	_, load := fi.loads[id.Name]
	return !def && !load && !fi.other[id.Name]
}

// undefinedUse reports whether the resolver found id undefined.
func undefinedUse(id *syntax.Ident) bool {
	b, ok := id.Binding.(*resolve.Binding)
	return ok && b != nil && b.Scope == resolve.Undefined
}
