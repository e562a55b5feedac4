package builtins

import (
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
)

// TestStyleWarningsAreKnown proves every curated warning exists in this
// version of buildtools (an unknown name would make the library exit the
// process, so unknown names are dropped; none may be), maps to a distinct
// warning code of the catalogue, and is listed once.
func TestStyleWarningsAreKnown(t *testing.T) {
	if u := UnknownStyleWarnings(); len(u) > 0 {
		t.Errorf("buildtools does not know these style warnings: %v", u)
	}
	names, codes := map[string]bool{}, map[contrib.Code]bool{}
	for _, w := range StyleWarnings {
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
	for _, d := range Lint("acme.test", "plugin.star", []byte(src)) {
		out = append(out, d.Pos.String()+" "+string(d.Code))
	}
	return out
}

func TestLintSkipsUnusedParameters(t *testing.T) {
	got := lintCodes("def run(ctx, args, *rest, limit = 3, **kw):\n    unused = 1\n    return None\n\nf = lambda ctx: 1\n")
	want := "plugin.star:2:5 StyleUnusedVariable"
	if strings.Join(got, "|") != want {
		t.Errorf("Lint = %v; want only %s", got, want)
	}
}

func TestLintHonoursBuildifierComments(t *testing.T) {
	if got := lintCodes("def run(ctx):\n    x = 1  # buildifier: disable=unused-variable\n    return ctx\n"); len(got) > 0 {
		t.Errorf("Lint = %v; want nothing", got)
	}
}

func TestLintUnparsableFileYieldsNothing(t *testing.T) {
	for _, src := range []string{"def f(:\n", "i = 0\nwhile i < 3:\n    i += 1\n"} {
		if got := lintCodes(src); len(got) > 0 {
			t.Errorf("Lint(%q) = %v; want nothing", src, got)
		}
	}
}

func TestLintReportsThePluginAndSeverity(t *testing.T) {
	ds := Lint("acme.test", "lib/x.star", []byte("HALF = 3 / 2\n"))
	if len(ds) != 1 {
		t.Fatalf("Lint = %v; want one diagnostic", ds)
	}
	d := ds[0]
	if d.Plugin != "acme.test" || d.Severity != contrib.SeverityWarning || d.Code != contrib.StyleIntegerDivision ||
		d.Pos != (contrib.Pos{File: "lib/x.star", Line: 1, Col: 8}) {
		t.Errorf("Lint = %+v", d)
	}
}
