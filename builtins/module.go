package builtins

import (
	"errors"
	"io/fs"
	"path"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/contrib"
)

// Dialect is the Starlark dialect plugins are written in: sets, while loops
// and top-level if/for are allowed; globals cannot be reassigned; recursion
// is off. Loops are bounded by the step budget.
var Dialect = syntax.FileOptions{Set: true, While: true, TopLevelControl: true}

// program is one compiled bundle file with its resolved loads.
type program struct {
	path  string // bundle-relative
	prog  *starlark.Program
	loads []string // bundle-relative paths, in load order
}

// bundleCompiler compiles the entry file and everything it loads, statically,
// before any code runs, so that every syntax, resolve and load error is a
// compile error (AT3).
type bundleCompiler struct {
	plugin string
	fsys   fs.FS
	root   string // display prefix for file names
	progs  map[string]*program
	diags  []contrib.Diagnostic
}

func (c *bundleCompiler) display(p string) string {
	if c.root == "" {
		return p
	}
	return c.root + "/" + p
}

func (c *bundleCompiler) report(code contrib.Code, pos contrib.Pos, format string, args ...any) {
	c.diags = append(c.diags, contrib.Diag(code, c.plugin, pos, format, args...))
}

// compileAll compiles entry and its loads. chain is the load path to p.
func (c *bundleCompiler) compile(p string, chain []string, from contrib.Pos) {
	for i, q := range chain {
		if q == p {
			cycle := append(append([]string{}, chain[i:]...), p)
			c.report(contrib.LoadCycle, from, "load cycle: %s", strings.Join(cycle, " -> "))
			return
		}
	}
	if _, done := c.progs[p]; done {
		return
	}
	src, err := fs.ReadFile(c.fsys, p)
	if err != nil {
		if len(chain) == 0 {
			c.report(contrib.EntryMissing, contrib.Pos{File: c.display(p)}, "entry file %s is not in the plugin bundle", p)
		} else {
			c.report(contrib.LoadMissing, from, "load(%q): no such file in the plugin bundle", p)
		}
		return
	}
	f, err := Dialect.Parse(c.display(p), src, 0)
	if err != nil {
		c.reportCompile(contrib.SyntaxError, err)
		c.progs[p] = nil
		return
	}
	guardRepeats(f)
	var pr *program
	if prog, err := starlark.FileProgram(f, IsPredeclared); err != nil {
		c.reportCompile(contrib.ResolveError, err)
		c.progs[p] = nil // the loads are still followed, so every file's errors show at once
	} else {
		pr = &program{path: p, prog: prog}
		c.progs[p] = pr
	}
	for _, stmt := range f.Stmts {
		ld, ok := stmt.(*syntax.LoadStmt)
		if !ok {
			continue
		}
		module := ld.ModuleName()
		target, why := resolveLoad(p, module)
		lp := posOf(ld.Module.TokenPos)
		if why != "" {
			c.report(contrib.LoadOutside, lp, "load(%q) %s; only files inside the plugin directory can be loaded", module, why)
			continue
		}
		if pr != nil {
			pr.loads = append(pr.loads, target)
		}
		c.compile(target, append(chain, p), lp)
	}
}

// reportCompile turns syntax and resolve errors into diagnostics, one per
// error, each at its position.
func (c *bundleCompiler) reportCompile(code contrib.Code, err error) {
	var list resolve.ErrorList
	var serr syntax.Error
	switch {
	case errors.As(err, &list):
		for _, e := range list {
			c.report(code, posOf(e.Pos), "%s", e.Msg)
		}
	case errors.As(err, &serr):
		c.report(code, posOf(serr.Pos), "%s", serr.Msg)
	default:
		c.report(code, contrib.Pos{}, "%v", err)
	}
}

// resolveLoad resolves module relative to the file from that loads it. It
// returns a reason when the target leaves the bundle.
func resolveLoad(from, module string) (string, string) {
	switch {
	case module == "":
		return "", "names no file"
	case strings.HasPrefix(module, "/") || strings.Contains(module, "\\") || strings.Contains(module, ":"):
		return "", "is not a relative path"
	}
	p := path.Join(path.Dir(from), module)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", "leaves the plugin directory"
	}
	return p, ""
}

func posOf(p syntax.Position) contrib.Pos {
	return contrib.Pos{File: p.Filename(), Line: int(p.Line), Col: int(p.Col)}
}
