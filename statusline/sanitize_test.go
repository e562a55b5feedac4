package statusline

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestCC18_Sanitize: what a plugin sets is shown as one line of at most
// maxText runes of valid UTF-8 — escapes, controls and bidi overrides
// dropped, whitespace folded, the rest truncated.
func TestCC18_Sanitize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"escape/csi colour", "\x1b[31mred\x1b[0m", "red"},
		{"escape/csi 256 colour", "\x1b[38;5;196mhot\x1b[m", "hot"},
		{"escape/csi private", "\x1b[?25lhidden cursor\x1b[?25h", "hidden cursor"},
		{"escape/csi clear screen", "\x1b[2J\x1b[Hhome", "home"},
		{"escape/csi malformed keeps text", "\x1b[31é!", "é!"},
		{"escape/osc 8 hyperlink st", "\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"escape/osc 8 hyperlink bel", "\x1b]8;;https://x.test\alink\x1b]8;;\a", "link"},
		{"escape/osc title bel", "\x1b]0;evil title\adone", "done"},
		{"escape/osc ended by new escape", "\x1b]0;t\x1b[1mbold", "bold"},
		{"escape/osc unterminated", "ok\x1b]0;rest of input", "ok"},
		{"escape/dcs", "\x1bPq#0;2;0;0;0\x1b\\after", "after"},
		{"escape/two-byte esc", "\x1b7saved\x1b8", "saved"},
		{"escape/charset designation", "\x1b(Babc", "abc"},
		{"escape/lone esc end", "abc\x1b", "abc"},
		{"escape/lone esc before text", "a\x1b\x01b", "ab"},
		{"escape/esc esc", "\x1b\x1b[31mx", "x"},
		{"escape/c1 csi utf8", "a\u009b31mb", "ab"},
		{"escape/c1 osc utf8", "a\u009d0;title\u009cb", "ab"},
		{"escape/c1 other", "a\u0085b\u0080c", "abc"},
		{"escape/8-bit csi raw byte", "a\x9b31mb", "ab"},
		{"escape/8-bit osc raw byte", "a\x9d0;t\x07b", "ab"},
		{"escape/c0 and del", "a\x00b\x07c\x08d\x7fe", "abcde"},
		{"escape/invalid utf8", "a\xffb\xc3(c", "ab(c"},
		{"escape/bidi override", "abc\u202edef\u202c", "abcdef"},
		{"escape/bidi isolate", "\u2066x\u2069", "x"},
		{"escape/replacement char kept", "a\uFFFDb", "a\uFFFDb"},
		{"escape/only escapes is blank", "\x1b[0m\x1b]0;t\a", ""},
		{"space/tab", "a\tb", "a b"},
		{"space/newline", "a\nb", "a b"},
		{"space/crlf", "a\r\nb", "a b"},
		{"space/run folds to one", "a\n\n\t\rb", "a b"},
		{"space/control inside a run", "a\n\x00\nb", "a b"},
		{"space/line and paragraph separators", "a\u2028b\u2029c", "a b c"},
		{"space/two spaces kept", "a  b", "a  b"},
		{"space/trimmed", "  \n padded \t ", "padded"},
		{"space/unicode spaces trimmed", "\u00a0nbsp\u3000", "nbsp"},
		{"space/only whitespace is blank", " \t\n ", ""},
		{"space/empty", "", ""},
		{"truncate/64 kept", strings.Repeat("a", 64), strings.Repeat("a", 64)},
		{"truncate/65 cut", strings.Repeat("a", 65), strings.Repeat("a", 64)},
		{"truncate/two-byte runes", strings.Repeat("é", 70), strings.Repeat("é", 64)},
		{"truncate/three-byte runes", strings.Repeat("界", 100), strings.Repeat("界", 64)},
		{"truncate/four-byte runes", strings.Repeat("🙂", 65), strings.Repeat("🙂", 64)},
		{"truncate/after escapes", "\x1b[31m" + strings.Repeat("b", 70), strings.Repeat("b", 64)},
		{"truncate/after trimming", "   " + strings.Repeat("c", 64) + "d", strings.Repeat("c", 64)},
		{"truncate/trailing space trimmed", strings.Repeat("e", 63) + " f", strings.Repeat("e", 63)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sanitizeText(tt.in)
			if got != tt.want || !utf8.ValidString(got) || utf8.RuneCountInString(got) > maxText {
				t.Errorf("sanitizeText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCC18_DescriptionLimit(t *testing.T) {
	in := strings.Repeat("d", 79) + "\n" + strings.Repeat("界", 10)
	want := strings.Repeat("d", 79)
	if got := sanitizeDescription(in); got != want {
		t.Errorf("SanitizeDescription = %q, want %q", got, want)
	}
	in = strings.Repeat("界", 81)
	if got := sanitizeDescription(in); utf8.RuneCountInString(got) != maxDescription {
		t.Errorf("SanitizeDescription kept %d runes, want %d", utf8.RuneCountInString(got), maxDescription)
	}
}

func TestCC18_SanitizeCleanDoesNotAllocate(t *testing.T) {
	for _, s := range []string{"12 reviews", "界 queue: 3 ✓", strings.Repeat("x", 64)} {
		var out string
		allocs := testing.AllocsPerRun(100, func() { out = sanitizeText(s) })
		if allocs != 0 || out != s {
			t.Errorf("sanitizeText(%q): %v allocs, result %q", s, allocs, out)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		"", "plain", "  padded  ", "\x1b[31mred\x1b[0m", "\x1b]8;;https://x\x1b\\l\x1b]8;;\x1b\\",
		"\x1b]0;title\a", "\x1b", "\x1b[", "\x1b]", "\x9b31m", "\u009b1m", "\u009d0;t\u009c",
		"a\tb\r\nc", "\xff\xfe", "\xed\xa0\x80", "\u202eevil", strings.Repeat("界", 70),
		strings.Repeat("a ", 40), "\u00a0x\u00a0", "\x1bP\x9c", "\x1b(0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := sanitizeText(in)
		if !utf8.ValidString(out) {
			t.Fatalf("sanitizeText(%q) = %q is not valid UTF-8", in, out)
		}
		if n := utf8.RuneCountInString(out); n > maxText {
			t.Fatalf("sanitizeText(%q) has %d runes", in, n)
		}
		for _, r := range out {
			if unicode.IsControl(r) || isDropped(r) || isBreak(r) {
				t.Fatalf("sanitizeText(%q) = %q contains %U", in, out, r)
			}
		}
		if out != strings.TrimFunc(out, unicode.IsSpace) {
			t.Fatalf("sanitizeText(%q) = %q is not trimmed", in, out)
		}
		if again := sanitizeText(out); again != out {
			t.Fatalf("Sanitize not idempotent: %q -> %q -> %q", in, out, again)
		}
		if d := sanitizeDescription(in); utf8.RuneCountInString(d) > maxDescription || !strings.HasPrefix(d, out) {
			t.Fatalf("SanitizeDescription(%q) = %q, Sanitize = %q", in, d, out)
		}
	})
}
