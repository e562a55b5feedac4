package builtins

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

var ident = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func isIdent(s string) bool { return ident.MatchString(s) }

// docs/api.md is checked against the code, so the reference cannot drift:
// its table of predeclared names against Predeclared, and the ctx fields it
// documents against the fields a ctx can have.

const apiDoc = "../docs/api.md"

// apiSection returns the text of the "## title" section of docs/api.md (up
// to the next "## "), or the text before the first section for "".
func apiSection(t *testing.T, title string) string {
	t.Helper()
	data, err := os.ReadFile(apiDoc)
	if err != nil {
		t.Fatal(err)
	}
	parts := regexp.MustCompile(`(?m)^## `).Split(string(data), -1)
	if title == "" {
		return parts[0]
	}
	for _, p := range parts[1:] {
		if strings.HasPrefix(p, title+"\n") {
			return p
		}
	}
	t.Fatalf("docs/api.md has no section %q", title)
	return ""
}

var backticked = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*)`")

// TestAPIDocPredeclaredTable proves the table of predeclared names at the
// top of docs/api.md lists every predeclared name and nothing else. The
// names generated from the point table (one constructor per point, the
// TARGET_/ORDER_ constants of its named defaults) are covered by one row and
// must each be named in the "Contribution points" section.
func TestAPIDocPredeclaredTable(t *testing.T) {
	var table []string
	for _, line := range strings.Split(apiSection(t, ""), "\n") {
		if !strings.HasPrefix(line, "| [") {
			continue
		}
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range backticked.FindAllStringSubmatch(first, -1) {
			table = append(table, m[1])
		}
	}
	points := apiSection(t, "Contribution points")
	generated := map[string]bool{}
	for _, p := range contrib.Points {
		if p.Kind {
			continue
		}
		generated[string(p.Name)] = true
		for _, tg := range p.Targets {
			generated["TARGET_"+strings.ToUpper(tg.Name)] = true
			generated["ORDER_"+strings.ToUpper(tg.Name)] = true
		}
	}
	for name := range Predeclared() {
		switch {
		case slices.Contains(table, name):
		case starlark.Universe[name] != nil || !isIdent(name):
			// The language's own builtins, wrapped by the host to bound
			// memory and nesting (docs/isolation.md), and hidden helpers
			// the compiler rewrites to: not part of the plugin API.
		case strings.HasPrefix(name, "TARGET_") || strings.HasPrefix(name, "ORDER_") && generated[name]:
			// "TARGET_<NAME> and ORDER_<NAME>" per named default.
			if !strings.Contains(points, "TARGET_<NAME>") {
				t.Errorf("docs/api.md does not describe the TARGET_<NAME> constants (%s)", name)
			}
		case generated[name] || strings.HasPrefix(name, "ORDER_") || strings.HasPrefix(name, "SCOPE_"):
			if !strings.Contains(points, "`"+name+"`") {
				t.Errorf("predeclared %s is not named in the Contribution points section of docs/api.md", name)
			}
		default:
			t.Errorf("predeclared %s is missing from the table of docs/api.md", name)
		}
	}
	for _, name := range table {
		if !IsPredeclared(name) {
			t.Errorf("docs/api.md lists %s, which is not predeclared", name)
		}
	}
	if len(table) < 10 {
		t.Errorf("read %d names from the table of docs/api.md; the table moved", len(table))
	}
}

var ctxMention = regexp.MustCompile("`ctx\\.([a-z_]+)")

// TestAPIDocCtxFields proves the ctx fields docs/api.md documents (the
// tables of its ctx section, and the sections titled after a field) are
// exactly the fields a ctx can have: the common ones, out (commands), site
// (placeholders) and every feature's field.
func TestAPIDocCtxFields(t *testing.T) {
	code := append(slices.Clone(baseCtxAttrs), "out", "site")
	for _, f := range ctxFields {
		code = append(code, f.name)
	}
	documented := map[string]bool{}
	for _, line := range strings.Split(apiSection(t, "ctx"), "\n") {
		if strings.HasPrefix(line, "|") {
			for _, m := range ctxMention.FindAllStringSubmatch(line, -1) {
				documented[m[1]] = true
			}
		}
	}
	data, _ := os.ReadFile(apiDoc)
	for _, m := range regexp.MustCompile(`(?m)^## (ctx\..*)$`).FindAllStringSubmatch(string(data), -1) {
		for _, f := range regexp.MustCompile(`ctx\.([a-z_]+)`).FindAllStringSubmatch(m[1], -1) {
			documented[f[1]] = true
		}
	}
	for _, name := range code {
		if !documented[name] {
			t.Errorf("ctx.%s is not documented in docs/api.md (the ctx tables or a \"## ctx.%s\" section)", name, name)
		}
	}
	for name := range documented {
		if !slices.Contains(code, name) {
			t.Errorf("docs/api.md documents ctx.%s, which no ctx has", name)
		}
	}
}
