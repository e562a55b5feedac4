package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the import path prefix of this module's packages.
const module = "github.com/crystal-star/crystal-star/"

// testOnly are packages made for tests. The CLI must not link them: each
// is compile time and binary weight on every build of the CLI for code it
// never runs (issue 26 point 6). internal/testkit brought go/parser and
// go/ast for GoFiles; httptest (through modelfake's server) its test
// certificate and flags.
var testOnly = []string{module + "internal/testkit", "net/http/httptest", "net/http/internal/testcert"}

// testImports are standard packages this module's code in the CLI must not
// import: they serve tests. testscript (below) still links testing and
// go/build (hence go/parser and go/ast) for `crystal-star test`.
var testImports = []string{"testing", "go/ast", "go/parser", "net/http/httptest"}

// TestH26_6_CLILinksNoTestCode: `go list -deps ./cmd/crystal-star` holds
// no test kit and no httptest; no package of this module that the CLI
// links imports testing, go/ast, go/parser or httptest; and testscript is
// reached only through starhost/plugintest, the runner of
// `crystal-star test`.
func TestH26_6_CLILinksNoTestCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`,
		module+"cmd/crystal-star").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		for _, p := range testOnly {
			if pkg == p || strings.HasPrefix(pkg, p+"/") {
				t.Errorf("the CLI links %s, which is made for tests", pkg)
			}
		}
		if !strings.HasPrefix(pkg, module) {
			continue
		}
		for _, im := range imports {
			if slices.Contains(testImports, im) {
				t.Errorf("%s (linked by the CLI) imports %s", pkg, im)
			}
			if strings.HasPrefix(im, "github.com/rogpeppe/go-internal/testscript") && pkg != module+"starhost/plugintest" {
				t.Errorf("%s (linked by the CLI) imports %s: only starhost/plugintest runs scenarios", pkg, im)
			}
		}
	}
}
