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
