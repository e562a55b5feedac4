package starhost_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// docGoBlock is one ```go block of a docs page.
type docGoBlock struct {
	line int // first line of the code, 1-based
	code string
}

func docGoBlocks(t *testing.T, page string) []docGoBlock {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docGoBlock
	var cur *docGoBlock
	var b strings.Builder
	for i, l := range strings.Split(string(data), "\n") {
		switch {
		case cur == nil && strings.TrimSpace(l) == "```go":
			cur = &docGoBlock{line: i + 2}
			b.Reset()
		case cur != nil && strings.TrimSpace(l) == "```":
			cur.code = b.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return blocks
}

// isDeclBlock reports whether code is top-level declarations (func, const,
// type, import) shown as signatures, as the reference sections do.
func isDeclBlock(code string) bool {
	n := 0
	for _, l := range strings.Split(code, "\n") {
		if l == "" || strings.HasPrefix(l, "//") || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, " ") || l == ")" || l == "}" {
			continue
		}
		for _, kw := range []string{"func ", "const ", "type ", "import "} {
			if strings.HasPrefix(l, kw) {
				n++
				goto next
			}
		}
		return false
	next:
	}
	return n > 0
}

// exportImporter type-checks against the compiled export data of the
// packages the docs use, as `go build` sees them.
func exportImporter(t *testing.T, fset *token.FileSet, pkgs ...string) types.Importer {
	t.Helper()
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if p, f, ok := strings.Cut(l, "="); ok && f != "" {
			exports[p] = f
		}
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
}

const modPath = "github.com/crystal-star/crystal-star/"

// TestH1_4_EmbeddingDocMatchesAPI checks the Go code of docs/embedding.md
// against the real API: each signature shown (func, method, const) must exist
// in starhost with those parameter and result types, and each code fragment
// is type-checked inside a function that has the names the page uses (ctx, h,
// s, t, snap, call, args, …): a method or field that does not exist, a wrong
// argument count or type fails. Only names the page leaves to the reader
// (undefined identifiers, unused variables, elided "…") are forgiven.
func TestH1_4_EmbeddingDocMatchesAPI(t *testing.T) {
	const page = "../docs/embedding.md"
	blocks := docGoBlocks(t, page)
	if len(blocks) < 20 {
		t.Fatalf("%s: found %d go blocks; the extraction is broken", page, len(blocks))
	}
	fset := token.NewFileSet()
	imp := exportImporter(t, fset, "./starhost", "./starhost/toolwire", "./starhost/mcpserve")
	sh, err := imp.Import(modPath + "starhost")
	if err != nil {
		t.Fatal(err)
	}
	var sigs, frags int
	for _, b := range blocks {
		if isDeclBlock(b.code) {
			sigs++
			for _, problem := range checkSignatures(sh, b.code) {
				t.Errorf("%s:%d: %s", page, b.line, problem)
			}
			continue
		}
		frags++
		for _, problem := range checkFragment(fset, imp, b.code) {
			t.Errorf("%s:%d: %s", page, b.line, problem)
		}
	}
	if sigs < 5 || frags < 10 {
		t.Fatalf("checked %d signature blocks and %d fragments; expected more", sigs, frags)
	}
}

// checkSignatures parses a declaration block and compares each declaration
// with the object of that name in package sh: functions and methods by their
// parameter and result types, constants by value, interfaces by their
// methods; an import must name a package of this module.
func checkSignatures(sh *types.Package, code string) []string {
	var problems []string
	qual := func(p *types.Package) string {
		if p == sh {
			return ""
		}
		return p.Name()
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+code, 0)
	if err != nil {
		return []string{fmt.Sprintf("does not parse as Go declarations: %v", err)}
	}
	checkFunc := func(shown string, fd *ast.FuncType, fn *types.Func) {
		sig := fn.Type().(*types.Signature)
		if got, want := fieldTypes(fd.Params), tupleTypes(sig.Params(), sig.Variadic(), qual); got != want {
			problems = append(problems, fmt.Sprintf("%s takes (%s), the page shows (%s)", shown, want, got))
		}
		if got, want := fieldTypes(fd.Results), tupleTypes(sig.Results(), false, qual); got != want {
			problems = append(problems, fmt.Sprintf("%s returns (%s), the page shows (%s)", shown, want, got))
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				fn, _ := sh.Scope().Lookup(d.Name.Name).(*types.Func)
				if fn == nil {
					problems = append(problems, fmt.Sprintf("starhost has no function %s", d.Name.Name))
					continue
				}
				checkFunc(d.Name.Name, d.Type, fn)
				continue
			}
			recv := d.Recv.List[0].Type
			ptr := false
			if s, ok := recv.(*ast.StarExpr); ok {
				ptr, recv = true, s.X
			}
			tn, _ := sh.Scope().Lookup(recv.(*ast.Ident).Name).(*types.TypeName)
			if tn == nil {
				problems = append(problems, fmt.Sprintf("starhost has no type %s", recv.(*ast.Ident).Name))
				continue
			}
			var rt types.Type = tn.Type()
			if ptr {
				rt = types.NewPointer(rt)
			}
			var fn *types.Func
			if sel := types.NewMethodSet(rt).Lookup(sh, d.Name.Name); sel != nil {
				fn, _ = sel.Obj().(*types.Func)
			}
			if fn == nil {
				problems = append(problems, fmt.Sprintf("func (%s) %s: no such method (go doc ./starhost)", types.TypeString(rt, qual), d.Name.Name))
				continue
			}
			checkFunc(fmt.Sprintf("(%s).%s", types.TypeString(rt, qual), d.Name.Name), d.Type, fn)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.ImportSpec:
					path := strings.Trim(spec.Path.Value, `"`)
					rel, ok := strings.CutPrefix(path, modPath)
					if !ok {
						continue
					}
					if st, err := os.Stat("../" + rel); err != nil || !st.IsDir() {
						problems = append(problems, fmt.Sprintf("import %q: no such package", path))
					}
				case *ast.ValueSpec:
					obj, ok := sh.Scope().Lookup(spec.Names[0].Name).(*types.Const)
					if !ok {
						problems = append(problems, fmt.Sprintf("starhost has no constant %s", spec.Names[0].Name))
						continue
					}
					if len(spec.Values) == 1 {
						if lit, ok := spec.Values[0].(*ast.BasicLit); ok && lit.Value != obj.Val().ExactString() {
							problems = append(problems, fmt.Sprintf("starhost.%s is %s, the page shows %s", obj.Name(), obj.Val().ExactString(), lit.Value))
						}
					}
				case *ast.TypeSpec:
					tn, _ := sh.Scope().Lookup(spec.Name.Name).(*types.TypeName)
					if tn == nil {
						problems = append(problems, fmt.Sprintf("starhost has no type %s", spec.Name.Name))
						continue
					}
					it, ok := spec.Type.(*ast.InterfaceType)
					if !ok {
						continue
					}
					for _, m := range it.Methods.List {
						ft, ok := m.Type.(*ast.FuncType)
						if !ok || len(m.Names) == 0 {
							continue
						}
						obj, _, _ := types.LookupFieldOrMethod(tn.Type(), false, sh, m.Names[0].Name)
						fn, _ := obj.(*types.Func)
						if fn == nil {
							problems = append(problems, fmt.Sprintf("%s has no method %s", spec.Name.Name, m.Names[0].Name))
							continue
						}
						checkFunc(spec.Name.Name+"."+m.Names[0].Name, ft, fn)
					}
				}
			}
		}
	}
	return problems
}

func fieldTypes(fl *ast.FieldList) string {
	if fl == nil {
		return ""
	}
	var out []string
	for _, f := range fl.List {
		var b bytes.Buffer
		printer.Fprint(&b, token.NewFileSet(), f.Type)
		n := max(len(f.Names), 1)
		for range n {
			out = append(out, b.String())
		}
	}
	return strings.Join(out, ", ")
}

func tupleTypes(tu *types.Tuple, variadic bool, qual types.Qualifier) string {
	var out []string
	for i := range tu.Len() {
		typ := tu.At(i).Type()
		if variadic && i == tu.Len()-1 {
			out = append(out, "..."+types.TypeString(typ.(*types.Slice).Elem(), qual))
			continue
		}
		out = append(out, types.TypeString(typ, qual))
	}
	return strings.Join(out, ", ")
}

// fragmentVars are the names the page's fragments use without declaring them.
var fragmentVars = map[string]string{
	"ctx":  "context.Context",
	"h":    "*starhost.Host",
	"s":    "*starhost.Session",
	"t":    "*starhost.Thread",
	"snap": "*starhost.ToolSnapshot",
	"call": "starhost.ToolCall",
	"args": "json.RawMessage",
	"srv":  "*mcpserve.Server",
}

var elidedBlock = regexp.MustCompile(`\{\s*…\s*\}`)

// forgiven are the type errors of a fragment that come from its being a
// fragment: names it leaves to the reader, values it does not use.
func forgiven(msg string) bool {
	if strings.HasPrefix(msg, "undefined: ") {
		return true
	}
	for _, p := range []string{"declared and not used", "is not used", "no new variables", "imported and not used", "missing return"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func checkFragment(fset *token.FileSet, imp types.Importer, code string) []string {
	code = elidedBlock.ReplaceAllString(code, "{}")
	code = strings.ReplaceAll(code, "…", "elided")
	var params []string
	for _, name := range []string{"ctx", "h", "s", "t", "snap", "call", "args", "srv"} {
		params = append(params, name+" "+fragmentVars[name])
	}
	var src strings.Builder
	src.WriteString("package doc\n\nimport (\n")
	for _, p := range []string{"context", "encoding/json", "errors", "fmt", "log", "os", modPath + "starhost", modPath + "starhost/toolwire", modPath + "starhost/mcpserve"} {
		fmt.Fprintf(&src, "\t%q\n", p)
	}
	src.WriteString(")\n\n")
	body := code
	if strings.HasPrefix(strings.TrimSpace(code), "starhost.") { // a composite literal shown alone
		body = "_ = " + code
	}
	fmt.Fprintf(&src, "func fragment(%s) {\n", strings.Join(params, ", "))
	header := strings.Count(src.String(), "\n")
	fmt.Fprintf(&src, "%s\n}\n", body)
	f, err := parser.ParseFile(fset, "fragment.go", src.String(), 0)
	if err != nil {
		return []string{fmt.Sprintf("does not parse as Go: %v", err)}
	}
	var problems []string
	conf := types.Config{Importer: imp, Error: func(err error) {
		te := err.(types.Error)
		if forgiven(te.Msg) {
			return
		}
		p := fset.Position(te.Pos)
		problems = append(problems, fmt.Sprintf("code line %d: %s", p.Line-header, te.Msg))
	}}
	conf.Check("doc", fset, []*ast.File{f}, nil)
	return problems
}

// TestH1_3_EmbeddingDocNamesRealAPI checks the names the prose of
// docs/embedding.md gives (starhost.X, toolwire.X, Host.M, Session.M,
// Thread.M) against the packages, and that "The glue, once" table lists every
// exported function of starhost/toolwire.
func TestH1_3_EmbeddingDocNamesRealAPI(t *testing.T) {
	const page = "../docs/embedding.md"
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	fset := token.NewFileSet()
	imp := exportImporter(t, fset, "./starhost", "./starhost/toolwire")
	pkgs := map[string]*types.Package{}
	for _, p := range []string{"starhost", "starhost/toolwire"} {
		pkg, err := imp.Import(modPath + p)
		if err != nil {
			t.Fatal(err)
		}
		pkgs[pkg.Name()] = pkg
	}
	sh := pkgs["starhost"]
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`\b(starhost|toolwire)\.([A-Z]\w*)`).FindAllStringSubmatch(text, -1) {
		if !seen[m[0]] && pkgs[m[1]].Scope().Lookup(m[2]) == nil {
			t.Errorf("%s names %s: no such name in package %s", page, m[0], m[1])
		}
		seen[m[0]] = true
	}
	for _, m := range regexp.MustCompile("`(Host|Session|Thread|ToolSnapshot)\\.([A-Z]\\w*)").FindAllStringSubmatch(text, -1) {
		if seen[m[0]] {
			continue
		}
		seen[m[0]] = true
		tn := sh.Scope().Lookup(m[1]).(*types.TypeName)
		if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), false, sh, m[2]); obj == nil {
			t.Errorf("%s names %s.%s: no such method (go doc ./starhost)", page, m[1], m[2])
		}
	}
	// A chain such as `Session().Client` or `h.Operator().Grant` starts at a
	// method of Host.
	host := types.NewPointer(sh.Scope().Lookup("Host").Type())
	for _, m := range regexp.MustCompile("`(?:h\\.)?([A-Z]\\w*)\\(\\)\\.").FindAllStringSubmatch(text, -1) {
		if obj, _, _ := types.LookupFieldOrMethod(host, false, sh, m[1]); obj == nil && !seen[m[0]] {
			t.Errorf("%s names %s…: Host has no method %s (go doc ./starhost)", page, m[0][1:], m[1])
		}
		seen[m[0]] = true
	}
	_, table, ok := strings.Cut(text, "### The glue, once")
	if !ok {
		t.Fatalf("%s: no \"The glue, once\" section", page)
	}
	table, _, _ = strings.Cut(table, "\n### ")
	tw := pkgs["toolwire"]
	for _, name := range tw.Scope().Names() {
		if fn, ok := tw.Scope().Lookup(name).(*types.Func); ok && fn.Exported() && !strings.Contains(table, "`"+name+"`") && !strings.Contains(table, "`"+name+"(") {
			t.Errorf("%s: the glue table does not list toolwire.%s", page, name)
		}
	}
}
