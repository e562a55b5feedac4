package starhost_test

import (
	"context"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
)

const h24MediaPlugin = `
contribute(tools = [
    tool(name = "crlf", catalogs = "work", multimodal = True, read_only = True,
         run = lambda ctx, args: image(b"x", "image/png\r\nX-Injected: 1")),
    tool(name = "huge", catalogs = "work", multimodal = True, read_only = True,
         run = lambda ctx, args: audio(b"x", "audio/" + "a" * 100000)),
    tool(name = "resource_crlf", catalogs = "work", multimodal = True, read_only = True,
         run = lambda ctx, args: resource("file:///a", text = "a", mime = "text/plain\n\x1b[2J")),
    tool(name = "params", catalogs = "work", multimodal = True, read_only = True,
         run = lambda ctx, args: resource("file:///a", text = "a", mime = "text/plain; charset=utf-8")),
])`

// TestH24_4_MediaTypesChecked: image(), audio() and resource() refuse a
// media type that is not RFC 6838's type/subtype (a CR/LF in it) or is over
// the cap, at the constructor, so the call fails at the plugin's line; a
// media type with parameters passes. An external tool's part with such a
// media type is refused on its result with invalid_output: every way a
// media type enters is checked.
func TestH24_4_MediaTypesChecked(t *testing.T) {
	ext := starhost.ExternalTool{Name: "shots", Catalogs: starhost.Work, Multimodal: true, Run: func(context.Context, any) starhost.ToolResult {
		return starhost.ToolResult{Text: "a shot", Parts: []starhost.ContentPart{{Type: starhost.PartText, Text: "a shot"},
			{Type: starhost.PartImage, Data: []byte("x"), MIME: "image/png\r\nX-Injected: 1"}}}
	}}
	h, notes, _ := pointsHost(t, starhost.Options{External: []starhost.ExternalTool{ext}}, map[string]string{"media": h24MediaPlugin})
	snap := h.Session().Thread("").Tools(context.Background(), starhost.Work)
	for name, want := range map[string]string{
		"crlf":          `image: mime type "image/png\r\nX-Injected: 1" is not a media type (type/subtype, RFC 6838)`,
		"huge":          `audio: mime type of 100006 bytes ("audio/aaaa`,
		"resource_crlf": `resource: mime type "text/plain\n\x1b[2J" is not a media type`,
	} {
		r := snap.Invoke(bg, name, nil)
		if r.Error == nil || r.Error.Code != starhost.ErrToolFailed || !strings.Contains(r.Error.Message, "plugin.star:") {
			t.Errorf("%s = %+v; want tool_failed at the plugin's line", name, r.Error)
		}
		found := false
		for _, n := range notes.with(contrib.CallbackFailed) {
			found = found || strings.Contains(n.Message, want)
		}
		if !found {
			t.Errorf("%s: no CallbackFailed note says %s; notes: %v", name, want, notes.with(contrib.CallbackFailed))
		}
	}
	if r := snap.Invoke(bg, "params", nil); !r.OK() || r.Parts[0].MIME != "text/plain; charset=utf-8" {
		t.Errorf("params = %+v", r)
	}
	r := snap.Invoke(bg, "shots", nil)
	if r.Error == nil || r.Error.Code != starhost.ErrInvalidOutput || !strings.Contains(r.Error.Message, `content part 2: mime type "image/png\r\nX-Injected: 1"`) {
		t.Errorf("an external tool's bad media type = %+v; want invalid_output", r)
	}
}
