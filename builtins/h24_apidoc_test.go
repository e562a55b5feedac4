package builtins

import (
	"strings"
	"testing"
)

// TestH24_12_APIDocListsEachNameOnce proves the table of predeclared names
// at the top of docs/api.md lists every name in one row only (issue 24,
// point 12: image, audio and resource were listed twice).
func TestH24_12_APIDocListsEachNameOnce(t *testing.T) {
	seen := map[string]int{}
	for i, line := range strings.Split(apiSection(t, ""), "\n") {
		if !strings.HasPrefix(line, "| [") {
			continue
		}
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range backticked.FindAllStringSubmatch(first, -1) {
			if prev, ok := seen[m[1]]; ok {
				t.Errorf("docs/api.md lists %s on line %d and again on line %d", m[1], prev+1, i+1)
			}
			seen[m[1]] = i
		}
	}
	if len(seen) == 0 {
		t.Fatal("docs/api.md has no table of predeclared names")
	}
}
