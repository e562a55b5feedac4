// Package openai is the model adapter of protocol "openai": OpenAI chat
// completions (POST {endpoint}/chat/completions) over net/http. Importing
// it registers the adapter with starhost/models:
//
//	import _ "github.com/crystal-star/crystal-star/starhost/models/openai"
//
// The endpoint includes the API version ("https://api.openai.com/v1"). The
// key goes in Authorization: Bearer, the provider's organization and
// project in OpenAI-Organization and OpenAI-Project. Thinking is sent as
// reasoning_effort (not for the sentinels), the service tier as
// service_tier; it has no speed. See docs/models.md.
package openai

import (
	"context"
	"net/http"

	"github.com/crystal-star/crystal-star/starhost/models"
	"github.com/crystal-star/crystal-star/starhost/models/internal/wire"
)

func init() { models.Register(Adapter{}) }

// Adapter is the adapter of protocol "openai".
type Adapter struct{}

// Protocol returns "openai".
func (Adapter) Protocol() string { return "openai" }

// Header is the headers of a request to OpenAI: the bearer key and the
// provider's organization and project (the responses protocol sends the
// same).
func Header(cfg models.ClientConfig) http.Header {
	h := wire.Bearer(cfg.APIKey)
	if cfg.Provider.Organization != "" {
		h.Set("OpenAI-Organization", cfg.Provider.Organization)
	}
	if cfg.Provider.Project != "" {
		h.Set("OpenAI-Project", cfg.Provider.Project)
	}
	return h
}

// message is one chat message; Content is a string, or a list of parts
// when the message carries images.
type message struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type textPart struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type imagePart struct {
	Type     string `json:"type"` // "image_url"
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

type request struct {
	Model               string    `json:"model"`
	Messages            []message `json:"messages"`
	MaxCompletionTokens int       `json:"max_completion_tokens,omitempty"`
	Temperature         *float64  `json:"temperature,omitempty"`
	TopP                *float64  `json:"top_p,omitempty"`
	ReasoningEffort     string    `json:"reasoning_effort,omitempty"`
	ServiceTier         string    `json:"service_tier,omitempty"`
}

// NewClient builds a chat completions client; a speed is not supported.
func (Adapter) NewClient(_ context.Context, cfg models.ClientConfig) (models.Client, error) {
	return wire.Post[request, wire.ChatReply]{Protocol: "openai", HasTier: true, Path: "/chat/completions",
		Header: Header(cfg), Request: newRequest, Reply: wire.ReadChat}.NewClient(cfg)
}

func newRequest(cfg models.ClientConfig, req models.Request) (request, error) {
	body := request{Model: cfg.Model.Name, MaxCompletionTokens: req.MaxTokens,
		Temperature: cfg.Facts.Temperature, TopP: cfg.Facts.TopP, ServiceTier: cfg.Facts.ServiceTier}
	if err := wire.CheckImages(cfg, req); err != nil {
		return body, err
	}
	for i, m := range req.Messages {
		msg := message{Role: m.Role, Content: m.Content}
		if m.Role != "system" && m.Role != "assistant" {
			msg.Role = "user"
			if i == len(req.Messages)-1 && len(req.Images) > 0 {
				parts := []any{textPart{Type: "text", Text: m.Content}}
				for _, u := range req.Images {
					img := imagePart{Type: "image_url"}
					img.ImageURL.URL = u
					parts = append(parts, img)
				}
				msg.Content = parts
			}
		}
		body.Messages = append(body.Messages, msg)
	}
	if wire.SendsThinking(req.Thinking) {
		body.ReasoningEffort = req.Thinking // forwarded unchanged (CC21)
	}
	return body, nil
}
