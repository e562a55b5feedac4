package statusline

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// reservedWords are the words that can never be field names, because
// /statusline uses them as subcommands. admitName rejects them. The slice is
// read-only; changing it is a data race with every admission.
var reservedWords = []string{"on", "off", "reset"}

// maxName is the longest field name CC15 admits, in characters.
const maxName = 32

// admitName checks a status field name against CC15 and returns its stored,
// lowercase form. A name is a letter, then letters, digits or single hyphens
// (no "--", no trailing "-"), at most 32 characters; letters are ASCII. The
// comparison with reservedWords and with builtin (the host-owned field names)
// is case-insensitive.
//
// The error is an English sentence naming the rule that failed, for example
// `status field "a--b" is invalid: "--" is not allowed` or
// `status field "model" is a built-in field`. When several rules fail, the
// first in this order is reported: empty, length, first character, characters,
// "--", trailing "-", reserved word, built-in name.
//
// admitName is a pure function and safe for concurrent use.
func admitName(name string, builtin []string) (string, error) {
	q := quoteName(name)
	if name == "" {
		return "", fmt.Errorf("status field %s is invalid: a name is required", q)
	}
	if n := utf8.RuneCountInString(name); n > maxName {
		return "", fmt.Errorf("status field %s is invalid: it has %d characters, at most %d are allowed", q, n, maxName)
	}
	if !isLetter(name[0]) {
		return "", fmt.Errorf("status field %s is invalid: it must start with a letter", q)
	}
	char := 1
	for i := 1; i < len(name); i++ {
		c := name[i]
		if c < utf8.RuneSelf || utf8.RuneStart(c) {
			char++
		}
		switch {
		case isLetter(c) || isDigit(c):
		case c == '-' && name[i-1] == '-':
			return "", fmt.Errorf("status field %s is invalid: \"--\" is not allowed", q)
		case c == '-':
		default:
			return "", fmt.Errorf("status field %s is invalid: %s at character %d is not allowed; use letters, digits or single hyphens", q, quoteRuneAt(name, i), char)
		}
	}
	if name[len(name)-1] == '-' {
		return "", fmt.Errorf("status field %s is invalid: it must not end with \"-\"", q)
	}
	lower := strings.ToLower(name)
	for _, w := range reservedWords {
		if lower == w {
			return "", fmt.Errorf("status field %s is reserved: %s is a status line verb", q, w)
		}
	}
	for _, w := range builtin {
		if strings.EqualFold(lower, w) {
			return "", fmt.Errorf("status field %s is a built-in field", q)
		}
	}
	return lower, nil
}

// quoteRuneAt quotes the character at byte offset i as a whole rune with its
// code point — `'і' (U+0456)` — so a look-alike letter shows what it is.
func quoteRuneAt(name string, i int) string {
	r, size := utf8.DecodeRuneInString(name[i:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("the invalid byte 0x%02x", name[i])
	}
	return fmt.Sprintf("%s (U+%04X)", strconv.QuoteRune(r), r)
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// quoteName quotes a plugin-supplied name for a message. Long names are cut so
// one hostile name cannot flood the notes; strconv.Quote escapes the rest.
func quoteName(name string) string {
	const max = 40
	if utf8.RuneCountInString(name) <= max {
		return strconv.Quote(name)
	}
	cut := 0
	for range max {
		_, size := utf8.DecodeRuneInString(name[cut:])
		cut += size
	}
	return strconv.Quote(name[:cut] + "…")
}
