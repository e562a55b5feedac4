package builtins

import (
	"errors"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

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
	parsed func(plugin, file string, f *syntax.File) // Options.Parsed
	// defNames maps each def's position (a starlark.Function's) to its
	// name's, where CallbackArity points, as check does.
	defNames map[syntax.Position]syntax.Position
	// operandGuards reports whether a file uses a guard bound to the
	// generation's memory budget (instancePredeclared); without one the
	// module runs with the shared predeclared names, not a copy.
	operandGuards bool
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

// nearestFile is the "did you mean" of a load of missing file p: the
// bundle's .star file nearest in spelling, else one of the same name in
// another directory.
func (c *bundleCompiler) nearestFile(p string) string {
	var files []string
	if b, ok := c.fsys.(interface{ Files() map[string][]byte }); ok { // a bundle snapshot lists no directories
		for q := range b.Files() {
			if strings.HasSuffix(q, ".star") {
				files = append(files, q)
			}
		}
	} else {
		_ = fs.WalkDir(c.fsys, ".", func(q string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(q, ".star") {
				files = append(files, q)
			}
			return nil
		})
	}
	slices.Sort(files)
	if hint := contrib.DidYouMean(p, files); hint != "" {
		return hint
	}
	for _, q := range files {
		if path.Base(q) == path.Base(p) {
			return contrib.Suggest(q) // DidYouMean's words, for the editor's quick fix
		}
	}
	return ""
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
			c.report(contrib.LoadMissing, from, "load(%q): no such file in the plugin bundle%s", p, c.nearestFile(p))
		}
		return
	}
	var mode syntax.Mode
	if c.parsed != nil {
		mode = syntax.RetainComments
	}
	f, err := Dialect.Parse(c.display(p), src, mode)
	if err != nil {
		c.reportCompile(contrib.SyntaxError, endOfLine(src, err))
		c.progs[p] = nil
		return
	}
	if c.parsed != nil {
		// The guards rewrite the tree in place (x + y becomes a call):
		// the checker gets the file as written, parsed once more and
		// resolved as the compiler resolves it (errors are the compiler's
		// to report).
		if orig, err := Dialect.Parse(c.display(p), src, mode); err == nil {
			_ = resolve.File(orig, IsPredeclared, starlark.Universe.Has)
			c.parsed(c.plugin, p, orig)
		}
	}
	for _, name := range guardRepeats(f) {
		if _, bound := operandGuardNames[name]; bound {
			c.operandGuards = true
		}
	}
	c.recordDefs(f)
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
		target, err := ResolveLoad(p, module)
		lp := posOf(ld.Module.TokenPos)
		if err != nil {
			c.report(contrib.LoadOutside, lp, "load(%q) %v; only files inside the plugin directory can be loaded", module, err)
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
			c.report(code, posOf(e.Pos), "%s", undefinedHint(e.Msg))
		}
	case errors.As(err, &serr):
		c.report(code, posOf(serr.Pos), "%s", serr.Msg)
	default:
		c.report(code, contrib.Pos{}, "%v", err)
	}
}

// resolveLoad resolves module relative to the file from that loads it. Its
// error, phrased to follow load(%q), says why the target is not a file of
// the bundle.
func ResolveLoad(from, module string) (string, error) {
	switch {
	case module == "":
		return "", errors.New("names no file")
	case strings.HasPrefix(module, "/") || strings.Contains(module, "\\") || strings.Contains(module, ":"):
		return "", errors.New("is not a relative path")
	}
	p := path.Join(path.Dir(from), module)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", errors.New("leaves the plugin directory")
	}
	return p, nil
}

// endOfLine moves a syntax error found at a line break or at the end of
// the file ("got newline, want ':'") back to the end of the last line with
// code before it, where the missing token belongs: the scanner reports the
// start of the next line, one line after the mistake.
func endOfLine(src []byte, err error) error {
	var serr syntax.Error
	if !errors.As(err, &serr) || serr.Pos.Col != 1 ||
		!(strings.HasPrefix(serr.Msg, "got newline") || strings.HasPrefix(serr.Msg, "got end of file")) {
		return err
	}
	lines := strings.Split(string(src), "\n")
	for l := int(serr.Pos.Line) - 1; l >= 1 && l <= len(lines); l-- {
		text := strings.TrimRight(lines[l-1], " \t\r")
		if strings.TrimSpace(text) != "" {
			serr.Pos.Line, serr.Pos.Col = int32(l), int32(utf8.RuneCountInString(text)+1)
			return serr
		}
	}
	return err
}

func posOf(p syntax.Position) contrib.Pos {
	return contrib.Pos{File: p.Filename(), Line: int(p.Line), Col: int(p.Col)}
}

// undefinedHint adds the nearest predeclared or universal name to the
// resolver's "undefined: x" (go.starlark.net suggests only the file's own
// names, as it cannot enumerate the predeclared ones).
func undefinedHint(msg string) string {
	name, ok := strings.CutPrefix(msg, "undefined: ")
	if !ok || strings.Contains(name, " ") {
		return msg
	}
	if why, ok := notProvided[name]; ok {
		return msg + " (" + why + ")"
	}
	return msg + contrib.DidYouMean(name, PredeclaredNames())
}

// notProvided explains the modules authors reach for that plugins do not
// have by design, instead of suggesting a lookalike (time is not timer).
var notProvided = map[string]string{
	"time":   "plugins have no clock: a module runs deterministically; a timer(every, run) runs code periodically",
	"random": "plugins have no randomness: a module runs deterministically",
	"os":     "plugins have no file or process access; use ctx.data with the data capability",
	"math":   "there is no math module; use the arithmetic operators, float() and int()",
	"re":     "there is no regular-expression module; use the string methods",
}

// PredeclaredNames lists, sorted, every name a plugin module can use
// without defining it: the predeclared names and Starlark's universe.
func PredeclaredNames() []string { return slices.Clone(predeclaredNames()) }

// predeclaredNames is predeclared and the universe, sorted and
// computed on first use, as most hosts never ask.
var predeclaredNames = sync.OnceValue(func() []string {
	names := slices.Collect(maps.Keys(predeclared))
	names = append(names, slices.Collect(maps.Keys(starlark.Universe))...)
	slices.Sort(names)
	return slices.Compact(names)
})
