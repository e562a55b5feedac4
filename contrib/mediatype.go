package contrib

import (
	"fmt"
	"strings"
)

// MaxMediaTypeBytes bounds a media type (a content part's mime, parameters
// included): RFC 6838 allows 127 characters each for the type and the
// subtype.
const MaxMediaTypeBytes = 255

// maxRestrictedName is RFC 6838's limit on a type or subtype name.
const maxRestrictedName = 127

// CheckMediaType returns nil when s is a media type of RFC 6838's shape —
// type "/" subtype, each a restricted-name (a letter or digit, then letters,
// digits and ! # $ & - ^ _ . +, at most 127) — optionally followed by
// parameters `; name=value` (a token or a quoted string of printable
// ASCII), at most MaxMediaTypeBytes in all. Nothing else passes: no
// white space but around the semicolons, no control character, no
// non-ASCII, so a media type cannot carry a line break into a header, a
// JSON-RPC client or a terminal. The error says what is wrong, quoting at
// most the first 64 bytes of s.
func CheckMediaType(s string) error {
	if len(s) > MaxMediaTypeBytes {
		return fmt.Errorf("mime type of %d bytes (%s…) is longer than %d bytes", len(s), quoteShort(s), MaxMediaTypeBytes)
	}
	bad := func(why string) error {
		return fmt.Errorf("mime type %s is not a media type (type/subtype, RFC 6838): %s", quoteShort(s), why)
	}
	full, params, hasParams := strings.Cut(s, ";")
	typ, sub, ok := strings.Cut(full, "/")
	if hasParams {
		sub = strings.TrimRight(sub, " ")
	}
	switch {
	case !ok:
		return bad("no /")
	case !restrictedName(typ):
		return bad("the type is not a name of letters, digits and !#$&-^_.+")
	case !restrictedName(sub):
		return bad("the subtype is not a name of letters, digits and !#$&-^_.+")
	}
	if !hasParams {
		return nil
	}
	for _, p := range strings.Split(params, ";") {
		name, value, ok := strings.Cut(strings.Trim(p, " "), "=")
		if !ok || !restrictedName(name) || !(token(value) || quoted(value)) {
			return bad("a parameter is not name=value")
		}
	}
	return nil
}

// quoteShort quotes s (Go syntax: control characters escaped), cut to 64
// bytes.
func quoteShort(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	return fmt.Sprintf("%q", s)
}

// restrictedName is RFC 6838's restricted-name.
func restrictedName(s string) bool {
	if s == "" || len(s) > maxRestrictedName || !alnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !alnum(s[i]) && !strings.ContainsRune("!#$&-^_.+", rune(s[i])) {
			return false
		}
	}
	return true
}

func alnum(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }

// token is RFC 2045's token: printable ASCII but space and tspecials.
func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?=`, rune(c)) {
			return false
		}
	}
	return true
}

// quoted is a quoted string of printable ASCII without quotes or
// backslashes inside.
func quoted(s string) bool {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c < ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
