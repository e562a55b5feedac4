package contrib

import (
	"strings"
	"testing"
)

// TestH24_4_MediaTypeShape: RFC 6838's type/subtype, with parameters,
// passes; a line break, a control or non-ASCII character, white space, a
// missing part or more than MaxMediaTypeBytes does not.
func TestH24_4_MediaTypeShape(t *testing.T) {
	for _, ok := range []string{"image/png", "audio/wav", "image/svg+xml", "application/vnd.api+json",
		"text/plain; charset=utf-8", `text/plain;charset="utf-8"`, "application/x-www-form-urlencoded",
		"image/" + strings.Repeat("a", 127)} {
		if err := CheckMediaType(ok); err != nil {
			t.Errorf("CheckMediaType(%q) = %v; want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "image", "image/", "/png", "image/png\r\nX-Injected: 1", "image/png\n",
		"image/png ", " image/png", "image /png", "image/p ng", "image/png\x1b[2J", "image/png\u202e", "imäge/png",
		"image/png; charset", "image/png; a=b c", "image/png; a=\"b\nc\"", "image/png;", "-image/png",
		"image/" + strings.Repeat("a", 128), "image/png; x=" + strings.Repeat("a", MaxMediaTypeBytes)} {
		if err := CheckMediaType(bad); err == nil {
			t.Errorf("CheckMediaType(%q) = nil; want an error", bad)
		} else if strings.ContainsAny(err.Error(), "\r\n\x1b\u202e") {
			t.Errorf("CheckMediaType(%q)'s error carries a control character: %q", bad, err)
		}
	}
}
