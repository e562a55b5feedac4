package main

import (
	"bufio"
	"flag"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateContract = flag.Bool("update", false, "rewrite the generated Tests lines of docs/contract.md")

// ruleID matches a contract rule id wherever it is cited.
var ruleID = regexp.MustCompile(`\b(CC|HK|DC|AT|MC)[0-9]+\b`)

// testFunc matches a Go test, example, benchmark or fuzz target that leads
// its name with a rule id.
var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Example|Benchmark|Fuzz)((?:CC|HK|DC|AT|MC)[0-9]+)_\w*)\(`)

// notBuilt marks a rule whose capability is not in the tree yet.
const notBuilt = "not built yet"

// TestContractDoc keeps docs/contract.md, the repository's statement of
// every rule, true to the tree: every id cited in Go code, in a test name
// or in a scenario is defined there; every rule is proved by a test unless
// it says it is not built yet; and each rule's Tests line lists exactly the
// tests that name it. Run with -update to regenerate the Tests lines.
func TestContractDoc(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docPath := filepath.Join(root, "docs", "contract.md")
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	defined, order := contractRules(string(doc))
	proofs, cited := ruleProofs(t, root)
	checkPackageLines(t, root, string(doc), proofs)

	for _, id := range slices.Sorted(maps.Keys(cited)) {
		if _, ok := defined[id]; !ok {
			t.Errorf("%s is cited in %s but not defined in docs/contract.md", id, cited[id])
		}
	}
	var want []string
	for _, id := range order {
		tests := proofs[id]
		line := "Tests: " + strings.Join(tests, ", ")
		if len(tests) == 0 {
			line = "Tests: " + notBuilt
			if defined[id] != line {
				t.Errorf("%s has no test that names it; write one, or mark it %q", id, notBuilt)
			}
		}
		want = append(want, line)
	}
	got := rewriteTestsLines(string(doc), want)
	if got == string(doc) {
		return
	}
	if *updateContract {
		if err := os.WriteFile(docPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/contract.md: the Tests lines are out of date; run: go test ./cmd/crystal-star -run TestContractDoc -update")
}

// contractRules returns each rule's current Tests line, keyed by id, and
// the ids in document order.
func contractRules(doc string) (map[string]string, []string) {
	defined := map[string]string{}
	var order []string
	id := ""
	for line := range strings.Lines(doc) {
		line = strings.TrimRight(line, "\n")
		if rest, ok := strings.CutPrefix(line, "### "); ok {
			id = strings.Fields(rest)[0]
			defined[id] = ""
			order = append(order, id)
		} else if id != "" && strings.HasPrefix(line, "Tests:") {
			defined[id] = line
		}
	}
	return defined, order
}

// rewriteTestsLines replaces the Tests line of each rule, in order.
func rewriteTestsLines(doc string, lines []string) string {
	var b strings.Builder
	i := 0
	for line := range strings.Lines(doc) {
		if strings.HasPrefix(line, "Tests:") && i < len(lines) {
			line = lines[i] + "\n"
			i++
		}
		b.WriteString(line)
	}
	return b.String()
}

// ruleProofs walks the repository: the tests naming each rule (Go tests by
// their name, scenarios by their file name and the ids in their first
// comment line), and where each id is cited at all.
func ruleProofs(t *testing.T, root string) (map[string][]string, map[string]string) {
	proofs := map[string][]string{}
	cited := map[string]string{}
	add := func(id, proof string) {
		if !slices.Contains(proofs[id], proof) {
			proofs[id] = append(proofs[id], proof)
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case strings.HasSuffix(path, ".go"):
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, id := range ruleID.FindAllString(string(src), -1) {
				cited[id] = rel
			}
			if strings.HasSuffix(path, "_test.go") {
				for _, m := range testFunc.FindAllStringSubmatch(string(src), -1) {
					add(m[2], m[1])
				}
			}
		case strings.HasSuffix(path, ".txtar") && filepath.Base(filepath.Dir(path)) == "script":
			name := filepath.Base(path)
			for _, id := range scenarioRules(t, path) {
				cited[id] = rel
				add(id, name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for id := range proofs {
		slices.Sort(proofs[id])
	}
	return proofs, cited
}

// scenarioRules returns the rules a scenario proves: the id its file name
// leads with, and those its first comment line lists ("# CC8, CC28: …").
func scenarioRules(t *testing.T, path string) []string {
	var ids []string
	if m := ruleID.FindString(strings.ToUpper(strings.SplitN(filepath.Base(path), "_", 2)[0])); m != "" {
		ids = append(ids, m)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if sc.Scan() {
		first := sc.Text()
		if head, _, ok := strings.Cut(first, ":"); ok && strings.HasPrefix(head, "#") {
			for _, id := range ruleID.FindAllString(head, -1) {
				if !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
		}
	}
	return ids
}

// backticked matches a `name` in a Package line.
var backticked = regexp.MustCompile("`([^`]+)`")

// checkPackageLines holds every rule's Package line to the tree: there is
// one, a rule that has tests does not say it is not built, and the first
// backticked name of each comma-separated part is a package directory
// (the rest of a part names code inside it).
func checkPackageLines(t *testing.T, root, doc string, proofs map[string][]string) {
	t.Helper()
	id, seen := "", map[string]bool{}
	for line := range strings.Lines(doc) {
		line = strings.TrimRight(line, "\n")
		if rest, ok := strings.CutPrefix(line, "### "); ok {
			id = strings.Fields(rest)[0]
			continue
		}
		rest, ok := strings.CutPrefix(line, "Package: ")
		if id == "" || !ok {
			continue
		}
		seen[id] = true
		if strings.HasPrefix(rest, notBuilt) {
			if len(proofs[id]) > 0 {
				t.Errorf("%s: Package says %q but %s prove it; name the packages", id, notBuilt, strings.Join(proofs[id], ", "))
			}
			continue
		}
		for _, part := range splitTopLevel(rest) {
			m := backticked.FindStringSubmatch(part)
			if m == nil {
				t.Errorf("%s: Package part %q names no `package`", id, part)
				continue
			}
			if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(m[1]))); err != nil || !fi.IsDir() {
				t.Errorf("%s: Package names %s, which is no package directory", id, m[1])
			}
		}
	}
	for id := range proofs {
		if !seen[id] && strings.Contains(doc, "### "+id+" ") {
			t.Errorf("%s has no Package line", id)
		}
	}
}

// splitTopLevel splits a Package line at the commas outside parentheses.
func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
