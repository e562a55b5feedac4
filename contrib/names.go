package contrib

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxNameLen is the longest tool, command, placeholder or protocol name.
const maxNameLen = 64

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// checkToken validates a letter followed by letters, digits and the bytes in
// extra, 1–64 characters. Its error is an English reason to follow the
// name ("tool name %q <reason>"), nil when the name is valid.
func checkToken(name, extra string) error {
	switch n := utf8.RuneCountInString(name); {
	case name == "":
		return errors.New("is empty")
	case n > maxNameLen:
		return fmt.Errorf("is %d characters long; the limit is %d", n, maxNameLen)
	}
	char := 0
	for i, r := range name {
		char++
		switch {
		case i == 0 && (r >= utf8.RuneSelf || !isLetter(byte(r))):
			return errors.New("must start with a letter")
		case r < utf8.RuneSelf && (isLetter(byte(r)) || isDigit(byte(r)) || strings.IndexByte(extra, byte(r)) >= 0):
		default:
			return fmt.Errorf("has %s at character %d; only letters, digits and %s are allowed", quoteRune(name, i), char, describe(extra))
		}
	}
	return nil
}

// quoteRune quotes the character of name at byte offset i as a whole rune
// with its code point — `'і' (U+0456)` — so a look-alike letter is told
// apart from the Latin one; an invalid byte is shown as such.
func quoteRune(name string, i int) string {
	r, size := utf8.DecodeRuneInString(name[i:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("the invalid byte 0x%02x", name[i])
	}
	return fmt.Sprintf("%s (U+%04X)", strconv.QuoteRune(r), r)
}

func describe(extra string) string {
	parts := make([]string, len(extra))
	for i := range extra {
		parts[i] = fmt.Sprintf("%q", extra[i])
	}
	return strings.Join(parts, " and ")
}

// CheckToolName checks a tool or command name against
// ^[A-Za-z][A-Za-z0-9_-]*$ and the 64-character limit (CC5, CC11). Its error
// says why the name is invalid, phrased to follow the name ("is empty"); nil
// when the name is valid.
func CheckToolName(name string) error { return checkToken(name, "_-") }

// CheckPlaceholderName checks a placeholder name: a letter, then letters,
// digits or "_", 1–64 characters (CC12). Its error reads as CheckToolName's.
func CheckPlaceholderName(name string) error { return checkToken(name, "_") }

// CheckProtocol checks a client-factory protocol token (CC8): the tool-name
// rules. Its error reads as CheckToolName's.
func CheckProtocol(name string) error { return checkToken(name, "_-") }

// fold returns the key under which names are compared case-insensitively.
func fold(name string) string { return strings.ToLower(name) }

// nameSet is a case-insensitive set of reserved names: the host's own
// list, searched in place. The lists are a few dozen names, and a map of
// them built for every plugin's staging was 4% of what starting 1,000
// plugins allocated (issue 26 point 5).
type nameSet []string

func newNameSet(names []string) nameSet { return nameSet(names) }

func (s nameSet) has(name string) bool {
	f := fold(name)
	for _, n := range s {
		if fold(n) == f {
			return true
		}
	}
	return false
}
