// Package responses is the model adapter of protocol "responses": the
// OpenAI Responses API (POST {endpoint}/responses) over net/http.
// Importing it registers the adapter with starhost/models:
//
//	import _ "github.com/crystal-star/crystal-star/starhost/models/responses"
//
// The endpoint and headers are openai's. The system text goes to
// instructions, the conversation to input (message items); thinking to
// reasoning.effort, the service tier to service_tier; it has no speed.
// See docs/models.md.
package responses

import (
	"context"
	"strings"

	"github.com/crystal-star/crystal-star/starhost/models"
	"github.com/crystal-star/crystal-star/starhost/models/internal/wire"
	"github.com/crystal-star/crystal-star/starhost/models/openai"
)

func init() { models.Register(Adapter{}) }

// Adapter is the adapter of protocol "responses".
type Adapter struct{}

// Protocol returns "responses".
func (Adapter) Protocol() string { return "responses" }

// item is an input message item; Content is a string, or a list of
// input_text and input_image parts when the message carries images.
type item struct {
	Type    string `json:"type"` // "message"
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type textPart struct {
	Type string `json:"type"` // "input_text"
	Text string `json:"text"`
}

type imagePart struct {
	Type     string `json:"type"` // "input_image"
	ImageURL string `json:"image_url"`
	Detail   string `json:"detail"`
}

type reasoning struct {
	Effort string `json:"effort"`
}

type request struct {
	Model           string     `json:"model"`
	Instructions    string     `json:"instructions,omitempty"`
	Input           []item     `json:"input"`
	MaxOutputTokens int        `json:"max_output_tokens,omitempty"`
	Temperature     *float64   `json:"temperature,omitempty"`
	TopP            *float64   `json:"top_p,omitempty"`
	Reasoning       *reasoning `json:"reasoning,omitempty"`
	ServiceTier     string     `json:"service_tier,omitempty"`
}

type reply struct {
	Status string `json:"status"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Output []struct {
		Type    string `json:"type"`
		Content []struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Refusal string `json:"refusal"`
		} `json:"content"`
	} `json:"output"`
	Usage struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

// NewClient builds a Responses API client; a speed is not supported.
func (Adapter) NewClient(_ context.Context, cfg models.ClientConfig) (models.Client, error) {
	return wire.Post[request, reply]{Protocol: "responses", HasTier: true, Path: "/responses",
		Header: openai.Header(cfg), Request: newRequest, Reply: readReply}.NewClient(cfg)
}

func newRequest(cfg models.ClientConfig, req models.Request) (request, error) {
	body := request{Model: cfg.Model.Name, MaxOutputTokens: req.MaxTokens,
		Temperature: cfg.Facts.Temperature, TopP: cfg.Facts.TopP, ServiceTier: cfg.Facts.ServiceTier}
	if err := wire.CheckImages(cfg, req); err != nil {
		return body, err
	}
	system, conv := models.Split(req)
	body.Instructions = system
	for i, m := range conv {
		it := item{Type: "message", Role: "user", Content: m.Content}
		if m.Role == "assistant" {
			it.Role = "assistant"
		}
		if i == len(conv)-1 && len(req.Images) > 0 {
			parts := []any{textPart{Type: "input_text", Text: m.Content}}
			for _, u := range req.Images {
				parts = append(parts, imagePart{Type: "input_image", ImageURL: u, Detail: "auto"})
			}
			it.Content = parts
		}
		body.Input = append(body.Input, it)
	}
	if wire.SendsThinking(req.Thinking) {
		body.Reasoning = &reasoning{Effort: req.Thinking}
	}
	return body, nil
}

// readReply reads a response: its output text, or the refusal or failure
// it reports instead.
func readReply(resp *reply) (models.Reply, error) {
	var text strings.Builder
	for _, it := range resp.Output {
		for _, c := range it.Content {
			switch {
			case c.Type == "refusal":
				return models.Reply{}, models.Refused("%s", c.Refusal)
			case it.Type == "message" && c.Type == "output_text":
				text.WriteString(c.Text)
			}
		}
	}
	reason := ""
	if resp.IncompleteDetails != nil {
		reason = resp.IncompleteDetails.Reason
	}
	switch {
	case resp.Status == "failed":
		msg := "the response failed"
		if resp.Error != nil && resp.Error.Message != "" {
			msg = resp.Error.Message
		}
		return models.Reply{}, &models.StatusError{Status: 500, Msg: msg}
	case reason == "content_filter":
		return models.Reply{}, models.Refused("incomplete: content_filter")
	case len(resp.Output) == 0:
		return models.Reply{}, models.Malformed("the response has no output")
	}
	finish := resp.Status
	if reason != "" {
		finish = reason
	}
	return models.Reply{Text: text.String(), FinishReason: finish,
		InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}, nil
}
