package statusline

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxText is the longest status text, in runes (CC18). Sanitize truncates to it.
const maxText = 64

// maxDescription is the longest field description shown by /statusline, in
// runes (CC18). sanitizeDescription truncates to it.
const maxDescription = 80

// sanitizeText turns plugin text into one clean line of at most maxText runes.
//
// It drops escape sequences (CSI "ESC [ … final byte 0x40–0x7E"; OSC, DCS, SOS,
// PM and APC strings up to BEL or ST; other ESC sequences; a lone ESC), C0 and
// C1 control characters (the 8-bit introducers CSI U+009B, OSC U+009D, DCS,
// SOS, PM and APC drop their whole sequence, as do the same raw bytes in
// invalid UTF-8), bidirectional embedding,
// override and isolate controls (U+202A–U+202E, U+2066–U+2069) and invalid
// UTF-8. A run of tabs, CR, LF, VT, FF, U+2028 and U+2029 becomes one space.
// Leading and trailing white space (unicode.IsSpace) is trimmed, then the text
// is cut to maxText runes (never inside a rune) and trimmed again.
//
// An already clean string is returned as is, without allocating, and
// sanitizeText(sanitizeText(x)) == sanitizeText(x). sanitizeText is pure and safe for
// concurrent use.
func sanitizeText(text string) string { return sanitize(text, maxText) }

// sanitizeDescription is Sanitize with the maxDescription limit, for the
// description of a field. It is pure and safe for concurrent use.
func sanitizeDescription(text string) string { return sanitize(text, maxDescription) }

func sanitize(s string, max int) string {
	if isClean(s, max) {
		return s
	}
	return clean(s, max)
}

// isClean reports whether clean(s, max) would return s unchanged.
func isClean(s string, max int) bool {
	n := 0
	for i := 0; i < len(s); n++ {
		if n == max {
			return false
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == ' ' && (i == 0 || i == len(s)-1) {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || isDropped(r) || isBreak(r) {
			return false
		}
		if (i == 0 || i+size == len(s)) && unicode.IsSpace(r) {
			return false
		}
		i += size
	}
	return true
}

// isDropped reports the non-ASCII runes removed outright: C1 controls and
// the bidi controls that can reorder what the operator sees.
func isDropped(r rune) bool {
	return 0x80 <= r && r <= 0x9f || 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069
}

// isBreak reports the characters that end a line or tab; a run of them
// becomes one space.
func isBreak(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x2028, 0x2029:
		return true
	}
	return false
}

// lineWriter accumulates clean output: leading space skipped, a run of breaks
// written as one space, at most max runes.
type lineWriter struct {
	b       strings.Builder
	n, max  int
	inBreak bool
}

func (w *lineWriter) full() bool { return w.n >= w.max }

func (w *lineWriter) rune(r rune) {
	if w.n == 0 && unicode.IsSpace(r) {
		return
	}
	w.b.WriteRune(r)
	w.n++
	w.inBreak = false
}

func (w *lineWriter) lineBreak() {
	if w.n == 0 || w.inBreak {
		return
	}
	w.b.WriteByte(' ')
	w.n++
	w.inBreak = true
}

func clean(s string, max int) string {
	w := lineWriter{max: max}
	w.b.Grow(min(len(s), max*utf8.UTFMax))
	for i := 0; i < len(s) && !w.full(); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == 0x1b:
				i = skipEscape(s, i)
			case isBreak(rune(c)):
				w.lineBreak()
			case c >= 0x20 && c != 0x7f:
				w.rune(rune(c))
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 {
			r = rune(c) // a raw 8-bit C1 byte still opens its sequence below
		}
		switch {
		case r == 0x9b:
			i = skipCSI(s, i)
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f:
			i = skipString(s, i)
		case size == 1, isDropped(r): // invalid UTF-8, C1, bidi controls
		case isBreak(r):
			w.lineBreak()
		default:
			w.rune(r)
		}
	}
	return strings.TrimRightFunc(w.b.String(), unicode.IsSpace)
}

// skipEscape returns the index just past the escape sequence whose ESC ends
// at i. A lone ESC (followed by nothing, a control or a non-ASCII byte) is
// dropped by itself.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[':
		return skipCSI(s, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i+1)
	case 0x20 <= c && c <= 0x2f: // intermediates, then one final byte
		for i < len(s) && 0x20 <= s[i] && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && 0x30 <= s[i] && s[i] <= 0x7e {
			i++
		}
		return i
	case 0x30 <= c && c <= 0x7e:
		return i + 1
	}
	return i
}

// skipCSI skips parameter and intermediate bytes and the final byte. A
// malformed sequence ends at the first byte that cannot belong to it, which
// is then read as ordinary input.
func skipCSI(s string, i int) int {
	for i < len(s) && 0x20 <= s[i] && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && 0x40 <= s[i] && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString skips an OSC, DCS, SOS, PM or APC body up to its terminator:
// BEL, ESC \ or ST (U+009C or a raw 0x9C byte). Another ESC ends it too and is
// then read as a new sequence. An unterminated string runs to the end, as it
// would in a terminal.
func skipString(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c == 0x07:
			return i + 1
		case c == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case c < utf8.RuneSelf:
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0x9c || r == utf8.RuneError && size == 1 && c == 0x9c {
			return i + size
		}
		i += size
	}
	return i
}
