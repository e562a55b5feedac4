package contrib

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Content parts (MC1): a tool declared multimodal may return, besides text
// and JSON, images, audio and resources. The same types cross every
// surface: starhost results, `call --json`, MCP content.

// PartType is the kind of one content part.
type PartType string

// The part types.
const (
	PartText     PartType = "text"
	PartImage    PartType = "image"
	PartAudio    PartType = "audio"
	PartResource PartType = "resource"
)

// Size limits of content parts, enforced for every tool result (plugin and
// external): one image, audio or resource body is at most maxPartBytes, a
// result's parts together at most maxResultBytes, and a result has at most
// maxParts parts. They keep one tool call from filling a model request (the
// common providers cap an image near 5 MB and a request near 20–32 MB)
// while leaving room for screenshots and short recordings.
const (
	maxPartBytes   = 4 << 20
	maxResultBytes = 8 << 20
	maxParts       = 32
)

// ErrContentTooLarge is the tool error code of a result over a size limit.
const ErrContentTooLarge = "content_too_large"

// Part is one content part. Text is set for text parts and text resources;
// Data for images and audio (encoded as base64 in JSON); Blob for binary
// resources. MIME is required for images and audio.
type Part struct {
	Type PartType `json:"type"`
	Text string   `json:"text,omitempty"`
	Data []byte   `json:"data,omitempty"`
	MIME string   `json:"mime,omitempty"`
	URI  string   `json:"uri,omitempty"`
	Blob []byte   `json:"blob,omitempty"`
}

// Size is the number of payload bytes of p.
func (p Part) Size() int { return len(p.Text) + len(p.Data) + len(p.Blob) }

// CheckPart checks one part's fields; its error says why the part is
// invalid, nil when it is valid. Sizes are checked per result, by
// PartsResult and on every tool's result.
func CheckPart(p Part) error {
	switch p.Type {
	case PartText:
		return nil
	case PartImage, PartAudio:
		if err := CheckMediaType(p.MIME); err != nil {
			return err
		}
		if !strings.HasPrefix(p.MIME, string(p.Type)+"/") {
			return fmt.Errorf("%s needs an %s/* mime type, got %q", p.Type, p.Type, p.MIME)
		}
		return nil
	case PartResource:
		switch {
		case p.MIME != "" && CheckMediaType(p.MIME) != nil:
			return CheckMediaType(p.MIME)
		case p.URI == "":
			return errors.New("resource needs a uri")
		case p.Text != "" && p.Blob != nil:
			return errors.New("resource takes text or blob, not both")
		}
		return nil
	}
	return fmt.Errorf("unknown part type %q", p.Type)
}

// checkContent checks a result's parts, whoever made them (a plugin, an
// external tool, an embedder): against the size limits (content_too_large)
// and CheckPart — a media type with a line break in it, say, from a tool
// set (invalid_output). It returns the error to answer instead, or nil.
func checkContent(parts []Part) *ToolError {
	if len(parts) > maxParts {
		return &ToolError{Code: ErrContentTooLarge, Message: fmt.Sprintf("the result has %d content parts; the limit is %d", len(parts), maxParts)}
	}
	total := 0
	for i, p := range parts {
		if err := CheckPart(p); err != nil {
			return &ToolError{Code: ErrInvalidOutput, Message: fmt.Sprintf("content part %d: %v", i+1, err)}
		}
		if p.Type != PartText && p.Size() > maxPartBytes {
			return &ToolError{Code: ErrContentTooLarge,
				Message: fmt.Sprintf("content part %d (%s) is %d bytes; the limit is %d", i+1, p.Type, p.Size(), maxPartBytes)}
		}
		total += p.Size()
	}
	if total > maxResultBytes {
		return &ToolError{Code: ErrContentTooLarge, Message: fmt.Sprintf("the result's content parts are %d bytes; the limit is %d", total, maxResultBytes)}
	}
	return nil
}

// PartsResult returns the result of a multimodal tool: Parts as given and
// Text the text parts joined by newlines, so text-only consumers (hooks,
// text surfaces) see the text.
func PartsResult(parts []Part) Result {
	if e := checkContent(parts); e != nil {
		return Result{Err: e}
	}
	return Result{Text: textOf(parts), Parts: parts}
}

func textOf(parts []Part) string {
	var texts []string
	for _, p := range parts {
		if p.Type == PartText {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// WithText returns r with its text replaced (a tool_result hook): the text
// parts become one part holding text, the other parts stay, in order.
func (r Result) WithText(text string) Result {
	if len(r.Parts) == 0 {
		return Result{Text: text}
	}
	parts := []Part{{Type: PartText, Text: text}}
	for _, p := range r.Parts {
		if p.Type != PartText {
			parts = append(parts, p)
		}
	}
	return Result{Text: text, Parts: parts}
}

// Without returns r without the parts of the given types, and how many were
// dropped (a host whose model takes no images keeps the text, MC1).
func (r Result) Without(types ...PartType) (Result, int) {
	if len(r.Parts) == 0 {
		return r, 0
	}
	kept := make([]Part, 0, len(r.Parts))
	for _, p := range r.Parts {
		drop := false
		for _, t := range types {
			drop = drop || p.Type == t
		}
		if !drop {
			kept = append(kept, p)
		}
	}
	dropped := len(r.Parts) - len(kept)
	r.Parts = kept
	return r, dropped
}

// PartsSink receives the content parts of a command's result (an image,
// an embedded resource): the caller that can pass them on (an MCP
// prompts/get) puts one in the command's context; the command's text is
// still its text parts joined, for every other caller.
type PartsSink func(parts []Part)

type partsSinkKey struct{}

// WithPartsSink returns ctx carrying sink, for the command run under it.
func WithPartsSink(ctx context.Context, sink PartsSink) context.Context {
	return context.WithValue(ctx, partsSinkKey{}, sink)
}

// PartsSinkFrom returns the parts sink of ctx, or nil.
func PartsSinkFrom(ctx context.Context) PartsSink {
	s, _ := ctx.Value(partsSinkKey{}).(PartsSink)
	return s
}

// CommandParts checks a command's content parts as a tool result's are
// checked (sizes, fields) and returns the turn's input text: the text
// parts joined by newlines.
func CommandParts(parts []Part) (string, error) {
	if e := checkContent(parts); e != nil {
		return "", fmt.Errorf("%s: %s", e.Code, e.Message)
	}
	return textOf(parts), nil
}
