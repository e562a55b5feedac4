package starhost_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
)

const mc1Plugin = `
def shot(ctx, args):
    return ["a red square", image(b"\x89PNG\r\n", "image/png"),
            resource("file:///notes.txt", text = "hi", mime = "text/plain"), audio(b"RIFF", "audio/wav")]

def big(ctx, args):
    return image("x" * (4 * 1024 * 1024 + 1), "image/png")

contribute(tools = [
    tool(name = "shot", catalogs = "work", multimodal = True, read_only = True, run = shot),
    tool(name = "big", catalogs = "work", multimodal = True, read_only = True, run = big),
    tool(name = "undeclared", catalogs = "work", read_only = True, run = lambda ctx, args: image(b"x", "image/png")),
    tool(name = "badmime", catalogs = "work", multimodal = True, read_only = True, run = lambda ctx, args: image(b"x", "text/plain")),
    tool(name = "tuple", catalogs = "work", multimodal = True, read_only = True, run = lambda ctx, args: ("t", audio(b"x", "audio/ogg"))),
    tool(name = "jsonlist", catalogs = "work", multimodal = True, read_only = True, run = lambda ctx, args: ["a", "b"]),
])`

// TestMC1_ContentParts: a multimodal tool returns typed image, audio and
// resource parts besides text; sizes are enforced with content_too_large;
// an undeclared tool may not return parts; the dispatch pipeline gives a
// model without image input only the text and resources, with a note.
func TestMC1_ContentParts(t *testing.T) {
	h, notes, _ := pointsHost(t, starhost.Options{}, map[string]string{"a": mc1Plugin})
	snap := h.Session().Thread("").Tools(context.Background(), starhost.Work)
	res := snap.Invoke(bg, "shot", nil)
	if !res.OK() || len(res.Parts) != 4 || res.Text != "a red square" {
		t.Fatalf("shot = %+v", res)
	}
	img, rsc, aud := res.Parts[1], res.Parts[2], res.Parts[3]
	if img.Type != starhost.PartImage || img.MIME != "image/png" || !bytes.Equal(img.Data, []byte("\x89PNG\r\n")) {
		t.Errorf("image part = %+v", img)
	}
	if rsc.Type != starhost.PartResource || rsc.URI != "file:///notes.txt" || rsc.Text != "hi" || rsc.MIME != "text/plain" {
		t.Errorf("resource part = %+v", rsc)
	}
	if aud.Type != starhost.PartAudio || aud.MIME != "audio/wav" {
		t.Errorf("audio part = %+v", aud)
	}
	for _, ti := range snap.List() {
		if ti.Name == "shot" && !ti.Multimodal || ti.Name == "undeclared" && ti.Multimodal {
			t.Errorf("%s: multimodal = %v", ti.Name, ti.Multimodal)
		}
	}
	if r := snap.Invoke(bg, "big", nil); r.Error == nil || r.Error.Code != starhost.ErrContentTooLarge {
		t.Errorf("big = %+v; want content_too_large", r.Error)
	}
	for _, name := range []string{"undeclared", "badmime"} {
		if r := snap.Invoke(bg, name, nil); r.Error == nil || r.Error.Code != starhost.ErrToolFailed {
			t.Errorf("%s = %+v; want tool_failed", name, r)
		}
	}
	if n := notes.with(contrib.CallbackFailed); len(n) != 2 || !strings.Contains(n[0].Message+n[1].Message, "not declared multimodal = True") {
		t.Errorf("notes = %v", n)
	}
	if r := snap.Invoke(bg, "tuple", nil); len(r.Parts) != 2 || r.Parts[1].Type != starhost.PartAudio {
		t.Errorf("a tuple of parts: %+v", r)
	}
	if r := snap.Invoke(bg, "jsonlist", nil); string(r.Data) != `["a","b"]` {
		t.Errorf("a list without parts is JSON: %+v", r)
	}

	// A model without images: the text and the resource reach it.
	d := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: "shot"}, nil)
	if len(d.Result.Parts) != 2 || d.Result.Parts[0].Type != starhost.PartText || d.Result.Parts[1].Type != starhost.PartResource {
		t.Errorf("dispatch without image input: parts %+v", d.Result.Parts)
	}
	if len(d.Notes) != 1 || d.Notes[0].Code != starhost.Code(contrib.ContentDropped) {
		t.Errorf("dispatch notes = %v; want one ContentDropped", d.Notes)
	}
	h.Session().SetModel(starhost.ModelFacts{Provider: "p", Model: "m", ImageInput: true})
	if d := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "2", Name: "shot"}, nil); len(d.Result.Parts) != 3 || d.Result.Parts[1].Type != starhost.PartImage {
		t.Errorf("dispatch with image input: parts %+v; want text, image, resource", d.Result.Parts)
	}
}
