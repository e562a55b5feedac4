package statusline

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Terminal makes plugin-supplied text safe to write to a terminal: the
// characters Sanitize removes from the status line are shown escaped here
// instead, so the text keeps its lines but can no longer clear the screen,
// set the window title, hide a line or reorder what the operator reads.
//
// C0 controls other than newline and tab, DEL and invalid UTF-8 bytes
// become `\x1b`-style escapes (an escape sequence's introducer is escaped,
// so the rest of it is inert text); C1 controls, the bidi embedding,
// override and isolate controls (U+202A–U+202E, U+2066–U+2069) and the line
// and paragraph separators become `\u202e`-style escapes. Nothing is cut.
//
// An already safe string is returned as is, without allocating. Terminal is
// pure and safe for concurrent use. JSON output needs none of this: its
// string escaping already carries the values intact.
func Terminal(text string) string {
	i := firstUnsafe(text)
	if i < 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	b.WriteString(text[:i])
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if unsafeASCII(c) {
				writeEscape(&b, `\x`, uint32(c), 2)
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeEscape(&b, `\x`, uint32(c), 2)
		case unsafeRune(r):
			writeEscape(&b, `\u`, uint32(r), 4)
		default:
			b.WriteString(text[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the offset of the first byte Terminal changes, or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if unsafeASCII(c) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeASCII reports the ASCII controls a terminal acts on: everything
// below space except newline and tab, and DEL.
func unsafeASCII(c byte) bool { return c < 0x20 && c != '\n' && c != '\t' || c == 0x7f }

// unsafeRune reports the non-ASCII runes a terminal acts on or that reorder
// text: those the status line drops, and the Unicode line separators.
func unsafeRune(r rune) bool { return isDropped(r) || r == 0x2028 || r == 0x2029 }

func writeEscape(b *strings.Builder, prefix string, v uint32, width int) {
	b.WriteString(prefix)
	h := strconv.FormatUint(uint64(v), 16)
	for range width - len(h) {
		b.WriteByte('0')
	}
	b.WriteString(h)
}
