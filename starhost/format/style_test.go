package format

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bazelbuild/buildtools/build"
	"github.com/bazelbuild/buildtools/warn"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// TestStyleWarningsAreKnown proves every curated warning exists in this
// version of buildtools (an unknown name would make the library exit the
// process, so unknown names are dropped; none may be), maps to a distinct
// warning code of the catalogue, and is listed once.
func TestStyleWarningsAreKnown(t *testing.T) {
	if u := unknownStyleWarnings(); len(u) > 0 {
		t.Errorf("buildtools does not know these style warnings: %v", u)
	}
	names, codes := map[string]bool{}, map[contrib.Code]bool{}
	for _, w := range styleWarnings {
		if names[w.Name] || codes[w.Code] {
			t.Errorf("style warning %s (%s) is listed twice", w.Name, w.Code)
		}
		names[w.Name], codes[w.Code] = true, true
		info, ok := w.Code.Info()
		if !ok || info.Severity != contrib.SeverityWarning || !strings.HasPrefix(string(w.Code), "Style") {
			t.Errorf("style warning %s: code %s is not a Style... warning of the catalogue", w.Name, w.Code)
		}
	}
}

func lintCodes(src string) []string {
	var out []string
	for _, d := range lint("acme.test", "plugin.star", []byte(src)) {
		out = append(out, d.Pos.String()+" "+string(d.Code))
	}
	return out
}

// TestLintFindings: what Lint reports of a file, by position and code.
// Parameters, loop variables and locals named _… are unused on purpose; an
// unused private global and a plain local are still reported; buildifier's
// disable comments are honoured; a file Lint cannot parse yields nothing.
func TestLintFindings(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"unused parameters skipped",
			"def run(ctx, args, *rest, limit = 3, **kw):\n    unused = 1\n    return None\n\nf = lambda ctx: 1\n",
			"plugin.star:2:5 StyleUnusedVariable"},
		{"loop variables and _locals skipped",
			"_private = 1\n\ndef run(ctx, args):\n    for i in range(3):\n        pass\n    for k, (a, b) in []:\n        pass\n    _ignored = 1\n    n = [1 for q in range(2)]\n    unused = 1\n    return str(n)\n",
			"plugin.star:1:1 StyleUnusedVariable|plugin.star:10:5 StyleUnusedVariable"},
		{"buildifier comment honoured", "def run(ctx):\n    x = 1  # buildifier: disable=unused-variable\n    return ctx\n", ""},
		{"syntax error yields nothing", "def f(:\n", ""},
		{"while loop yields nothing", "i = 0\nwhile i < 3:\n    i += 1\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := strings.Join(lintCodes(c.src), "|"); got != c.want {
				t.Errorf("Lint = %q; want %q", got, c.want)
			}
		})
	}
}

func TestLintReportsThePluginAndSeverity(t *testing.T) {
	ds := lint("acme.test", "lib/x.star", []byte("HALF = 3 / 2\n"))
	if len(ds) != 1 {
		t.Fatalf("Lint = %v; want one diagnostic", ds)
	}
	d := ds[0]
	if d.Plugin != "acme.test" || d.Severity != contrib.SeverityWarning || d.Code != contrib.StyleIntegerDivision ||
		d.Pos != (contrib.Pos{File: "lib/x.star", Line: 1, Col: 8}) {
		t.Errorf("Lint = %+v", d)
	}
}

// lintByBuildifierParse is Lint as it was before LintTree: buildifier's own
// parser, then the same warnings. The equivalence test below holds the
// translated tree to it.
func lintByBuildifierParse(t *testing.T, file string, src []byte) []string {
	f, err := build.ParseDefault(file, src)
	if err != nil {
		return nil
	}
	params := parameterPositions(f)
	var out []string
	for _, fd := range warn.FileWarnings(f, styleNames, nil, warn.ModeWarn, nil) {
		w, ok := styleWarning(fd.Category)
		if !ok || (w.Code == contrib.StyleUnusedVariable && params[fd.Start.Byte]) {
			continue
		}
		out = append(out, fmt.Sprintf("%d:%d %s", fd.Start.Line, fd.Start.LineRune, w.Code))
	}
	return out
}

// TestLintTreeMatchesBuildifierParse proves that the style warnings on the
// compiler's tree (translated) are exactly those on buildifier's own
// parse, for every .star file of the example plugins and the check corpus.
func TestLintTreeMatchesBuildifierParse(t *testing.T) {
	n := 0
	for _, root := range []string{"../../plugins", "../../testdata/check"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".star") {
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			var got []string
			for _, d := range lint("acme.test", p, src) {
				got = append(got, fmt.Sprintf("%d:%d %s", d.Pos.Line, d.Pos.Col, d.Code))
			}
			if want := lintByBuildifierParse(t, p, src); !slices.Equal(got, want) {
				t.Errorf("%s: on the compiler's tree %v; on buildifier's parse %v", p, got, want)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 50 {
		t.Errorf("compared %d files; want the whole corpus", n)
	}
}

// lint runs styleWarnings over one Starlark file and returns a warning per
// finding, at its file:line:col, for plugin. file names the file in
// positions. A file that does not parse (a syntax error, which the compiler
// reports) yields nothing.
func lint(plugin, file string, src []byte) []contrib.Diagnostic {
	f, err := builtins.Dialect.Parse(file, src, syntax.RetainComments)
	if err != nil {
		return nil
	}
	return LintTree(plugin, file, f, src)
}

// TestH29_3_FixStyle: buildifier's automatic fix of a style warning, as the
// language server's quick fix applies it: an unused load is removed, an
// integer / becomes //; a warning with no fix, and a clean file, give none.
func TestH29_3_FixStyle(t *testing.T) {
	src := "load(\"lib.star\", \"used\", \"unused\")\n\nX = used(7 / 2)\n"
	out, ok := FixStyle("plugin.star", []byte(src), contrib.StyleUnusedLoad)
	if want := "load(\"lib.star\", \"used\")\n\nX = used(7 / 2)\n"; !ok || string(out) != want {
		t.Errorf("FixStyle(StyleUnusedLoad) = %q, %v; want %q", out, ok, want)
	}
	out, ok = FixStyle("plugin.star", []byte(src), contrib.StyleIntegerDivision)
	if !ok || !strings.Contains(string(out), "7 // 2") || !strings.Contains(string(out), `"unused"`) {
		t.Errorf("FixStyle(StyleIntegerDivision) = %q, %v; want 7 // 2 and the load untouched", out, ok)
	}
	if out, ok := FixStyle("plugin.star", []byte("X = 1\n"), contrib.StyleUnusedLoad); ok {
		t.Errorf("FixStyle on a clean file = %q", out)
	}
	if out, ok := FixStyle("plugin.star", []byte(src), contrib.StyleUnreachable); ok {
		t.Errorf("FixStyle of a warning with nothing to fix = %q", out)
	}
}
