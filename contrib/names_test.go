package contrib

import (
	"strings"
	"testing"
)

// nameCase is a name and whether it is valid; why is a fragment of the
// reason when it is not.
type nameCase struct {
	name string
	ok   bool
	why  string
}

// checkNames runs problem on every case, one subtest each.
func checkNames(t *testing.T, check func(string) error, tests []nameCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errText(check(tt.name))
			if tt.ok != (got == "") {
				t.Fatalf("problem(%q) = %q, want valid=%v", tt.name, got, tt.ok)
			}
			if !tt.ok && !strings.Contains(got, tt.why) {
				t.Errorf("problem(%q) = %q, want it to mention %q", tt.name, got, tt.why)
			}
		})
	}
}

func TestCC5_ToolNamePattern(t *testing.T) {
	checkNames(t, CheckToolName, []nameCase{
		{"read_file", true, ""},
		{"a", true, ""},
		{"Z9", true, ""},
		{"web-search", true, ""},
		{"a_-_b", true, ""},
		{"x" + strings.Repeat("y", 63), true, ""}, // 64 characters
		{"x" + strings.Repeat("y", 64), false, "65 characters long"}, // 65 characters
		{"", false, "empty"},
		{"9lives", false, "start with a letter"},
		{"_tool", false, "start with a letter"},
		{"-tool", false, "start with a letter"},
		{"web search", false, "character 4"},
		{"web.search", false, "character 4"},
		{"fіne", false, "has 'і' (U+0456) at character 2"}, // Cyrillic і: a whole rune, its code point, its character position
		{"a\xffb", false, "the invalid byte 0xff at character 2"},
		{"ünicode", false, "start with a letter"},
		{"tool/x", false, "'/'"},
	})
}

func TestCC12_PlaceholderNamePattern(t *testing.T) {
	checkNames(t, CheckPlaceholderName, []nameCase{
		{"workspace", true, ""},
		{"git_branch", true, ""},
		{"X1", true, ""},
		{"p" + strings.Repeat("_", 63), true, ""},
		{"p" + strings.Repeat("_", 64), false, "65 characters long"},
		{"", false, "empty"},
		{"1st", false, "start with a letter"},
		{"_x", false, "start with a letter"},
		{"git-branch", false, "character 4"}, // '-' is a tool-name byte, not a placeholder one
		{"a b", false, "character 2"},
		{"a{b", false, "character 2"},
	})
	// The same name differs between the two kinds only by '-'.
	if CheckToolName("git-branch") != nil {
		t.Errorf("git-branch must be a valid tool name")
	}
	if got := errText(CheckPlaceholderName("git-branch")); strings.Contains(got, `'-'`) && !strings.Contains(got, `'_'`) {
		t.Errorf("reason %q should list only the allowed extra byte '_'", got)
	}
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
