package contrib

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// diagnosticsDoc is the page that documents every code of Catalogue.
const diagnosticsDoc = "../docs/diagnostics.md"

// docSection is one "## Code" section of docs/diagnostics.md.
type docSection struct {
	code string
	body string
}

var headingRE = regexp.MustCompile(`(?m)^## (.+?)\s*$`)

// readDocSections returns the level-2 sections of docs/diagnostics.md whose
// heading is a single word, in document order. Headings of several words
// ("## Reading a diagnostic") are prose, not codes.
func readDocSections(t *testing.T) []docSection {
	t.Helper()
	data, err := os.ReadFile(diagnosticsDoc)
	if err != nil {
		t.Fatalf("reading the diagnostics documentation: %v", err)
	}
	text := string(data)
	locs := headingRE.FindAllStringSubmatchIndex(text, -1)
	var out []docSection
	for i, loc := range locs {
		name := text[loc[2]:loc[3]]
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		if strings.ContainsAny(name, " \t") {
			continue
		}
		out = append(out, docSection{code: name, body: text[loc[1]:end]})
	}
	return out
}

// exampleNames reports whether a fenced block of body shows code.
func exampleNames(body, code string) bool {
	parts := strings.Split(body, "```")
	for i := 1; i < len(parts); i += 2 {
		if strings.Contains(parts[i], code) {
			return true
		}
	}
	return false
}

// TestDiagnosticCatalogueIsDocumented keeps docs/diagnostics.md and Catalogue
// in step: every code has a "## Code" section, in catalogue order, stating
// the catalogue's severity, an example that shows the code and the fix; every such
// section names a known code.
func TestDiagnosticCatalogueIsDocumented(t *testing.T) {
	sections := readDocSections(t)
	documented := map[string]docSection{}
	var order []string
	for _, s := range sections {
		if _, ok := Code(s.code).Info(); !ok {
			t.Errorf("%s: heading ## %s names no code of contrib.Catalogue", diagnosticsDoc, s.code)
			continue
		}
		if _, dup := documented[s.code]; dup {
			t.Errorf("%s: code %s is documented twice", diagnosticsDoc, s.code)
			continue
		}
		documented[s.code] = s
		order = append(order, s.code)
	}
	var want []string
	for _, info := range Catalogue {
		code := string(info.Code)
		want = append(want, code)
		s, ok := documented[code]
		if !ok {
			t.Errorf("%s: code %s has no ## %s section", diagnosticsDoc, code, code)
			continue
		}
		if sev := "**Severity:** " + string(info.Severity); !strings.Contains(s.body, sev) {
			t.Errorf("%s: section %s does not say %q", diagnosticsDoc, code, sev)
		}
		if !exampleNames(s.body, code) {
			t.Errorf("%s: section %s has no fenced example that shows the code", diagnosticsDoc, code)
		}
		if !strings.Contains(s.body, "**Fix:**") {
			t.Errorf("%s: section %s has no **Fix:**", diagnosticsDoc, code)
		}
	}
	if !t.Failed() && strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("%s: sections are not in catalogue order\n got: %v\nwant: %v", diagnosticsDoc, order, want)
	}
}

// TestDiagnosticCodesAreUnique checks that every code appears once in
// Catalogue, with a severity, a summary and a fix, and that Info finds it.
func TestDiagnosticCodesAreUnique(t *testing.T) {
	seen := map[Code]bool{}
	for _, info := range Catalogue {
		if seen[info.Code] {
			t.Errorf("code %s appears twice in Catalogue", info.Code)
		}
		seen[info.Code] = true
		switch info.Severity {
		case SeverityError, SeverityWarning, SeverityNote:
		default:
			t.Errorf("code %s has severity %q", info.Code, info.Severity)
		}
		if info.Summary == "" || info.Fix == "" {
			t.Errorf("code %s lacks a summary or a fix", info.Code)
		}
		if got, ok := info.Code.Info(); !ok || got.Code != info.Code {
			t.Errorf("Code(%q).Info() = %v, %v", info.Code, got, ok)
		}
	}
	if len(codeIndex) != len(Catalogue) {
		t.Errorf("codeIndex has %d codes, Catalogue %d", len(codeIndex), len(Catalogue))
	}
}

// The library's remedies say what to do, not which CLI command does it:
// naming `crystal-star …` is the CLI's business (issue 12).
func TestCatalogueRemediesNameNoCLICommand(t *testing.T) {
	for _, info := range Catalogue {
		if strings.Contains(strings.ToLower(info.Fix), "crystal-star") {
			t.Errorf("%s: fix %q names the CLI", info.Code, info.Fix)
		}
	}
}
