package statusline

import "testing"

// Terminal shows every control a terminal would act on as an escape, keeps
// newlines, tabs and ordinary text, and leaves safe text untouched.
func TestTerminalEscapesControls(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcode, 中文":           "plain text, ünïcode, 中文",
		"two\nlines\tand a tab":             "two\nlines\tand a tab",
		"\x1b[2J\x1b[Hcleared":              `\x1b[2J\x1b[Hcleared`,
		"\x1b]0;pwned\x07title":             `\x1b]0;pwned\x07title`,
		"over\rwrite":                       `over\x0dwrite`,
		"del\x7f":                           `del\x7f`,
		"csi \u009b31m c1":                  `csi \u009b31m c1`,
		"evil\u202Etxt.exe \u2066iso\u2069": `evil\u202etxt.exe \u2066iso\u2069`,
		"bad \xff\xfe bytes":                `bad \xff\xfe bytes`,
		"line\u2028sep":                     `line\u2028sep`,
	} {
		if got := Terminal(in); got != want {
			t.Errorf("Terminal(%q) = %q, want %q", in, got, want)
		}
		if got := Terminal(Terminal(in)); got != Terminal(in) {
			t.Errorf("Terminal is not idempotent on %q: %q", in, got)
		}
	}
}

func BenchmarkTerminalClean(b *testing.B) {
	s := "Normalizes review text and returns a summary of the findings."
	for b.Loop() {
		_ = Terminal(s)
	}
}
