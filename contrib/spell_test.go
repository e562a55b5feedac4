package contrib

import "testing"

func TestNearest(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"tol", "tool"},
		{"tool_cal", "tool_call"},
		{"worksapce", "workspace"},
		{"verison", "version"},
		{"blockd", "blocked"},
		{"xyz", ""},
		{"tool", ""}, // itself is no suggestion
	} {
		got := Nearest(c.name, []string{"tool", "tool_call", "workspace", "version", "blocked", "command"})
		if got != c.want {
			t.Errorf("Nearest(%q) = %q; want %q", c.name, got, c.want)
		}
	}
}

// TestH29_3_SuggestedReadsDidYouMean: the language server's quick fixes
// read back what DidYouMean writes, wherever it stands in a message.
func TestH29_3_SuggestedReadsDidYouMean(t *testing.T) {
	msg := "ctx has no field worksapce" + DidYouMean("worksapce", []string{"workspace", "session"}) + "; more"
	if got, ok := Suggested(msg); !ok || got != "workspace" {
		t.Errorf("Suggested(%q) = %q, %v; want workspace", msg, got, ok)
	}
	if got, ok := Suggested("ctx has no field x; its fields are a, b"); ok {
		t.Errorf("Suggested without a suggestion = %q, want none", got)
	}
}
