package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/contrib"
)

// ContentPart is one typed part of a multimodal tool result (MC1):
// ToolResult.Parts holds them in order, ToolResult.Text their text parts.
// Each result's parts together stay within the host's size limits
// (content_too_large otherwise).
type ContentPart struct {
	// Type is the kind of part; it says which of the other fields are set.
	Type PartType `json:"type"`
	// Text is the text of a text part or of a text resource.
	Text string `json:"text,omitempty"`
	// Data is the bytes of an image or audio part (base64 in JSON).
	Data []byte `json:"data,omitempty"`
	// MIME is the media type, required for images (image/*) and audio
	// (audio/*).
	MIME string `json:"mime,omitempty"`
	// URI names a resource (required for resources).
	URI string `json:"uri,omitempty"`
	// Blob is the body of a binary resource (base64 in JSON).
	Blob []byte `json:"blob,omitempty"`
}

// Size is the number of payload bytes of p (Text, Data and Blob).
func (p ContentPart) Size() int { return internalPart(p).Size() }

// PartType is the kind of one ContentPart.
type PartType string

// The content part types.
const (
	PartText     PartType = "text"
	PartImage    PartType = "image"
	PartAudio    PartType = "audio"
	PartResource PartType = "resource"
)

// forModel is ForModel on the registry's result: the adapted result and
// the ContentDropped note, when dropped says parts were dropped.
func (h *Host) forModel(ctx context.Context, res contrib.Result, tool string) (out contrib.Result, note contrib.Diagnostic, dropped bool) {
	if len(res.Parts) == 0 {
		return res, note, false
	}
	var drop []contrib.PartType
	s := h.sessionOf(ctx).Model()
	if s == nil || !s.ImageInput {
		drop = append(drop, contrib.PartImage)
	}
	if s == nil || !s.AudioInput {
		drop = append(drop, contrib.PartAudio)
	}
	out, n := res.Without(drop...)
	if n == 0 {
		return res, note, false
	}
	model := "the session has no model"
	if s != nil {
		model = "the session model " + s.Provider + "/" + s.Model + " takes no images or audio"
	}
	return out, contrib.Diag(contrib.ContentDropped, "", contrib.Pos{}, "tool %s returned %d image or audio part(s); %s, so only its text and resources are kept", tool, n, model), true
}

// partsValue is what the recorder and normalizer stages see of content
// parts: type, mime, uri and size, never the bytes (only JSON crosses to
// plugins, and a screenshot in every record would be waste).
func partsValue(parts []contrib.Part) []any {
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = map[string]any{"type": string(p.Type), "mime": p.MIME, "uri": p.URI, "size": p.Size()}
	}
	return out
}

// keepParts carries the content parts of the invoked result through the
// normalizer, which sees and returns only text, data and error: a failed
// or data result replaces them, a changed text replaces the text parts.
func keepParts(invoked, normalized contrib.Result) contrib.Result {
	switch {
	case len(invoked.Parts) == 0 || !normalized.OK() || normalized.Data != nil:
		return normalized
	case normalized.Text == invoked.Text:
		return invoked
	}
	return invoked.WithText(normalized.Text)
}
