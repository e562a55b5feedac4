// Package deepseek is the model adapter of protocol "deepseek": DeepSeek's
// chat API (POST {endpoint}/chat/completions, Authorization: Bearer) over
// net/http. Importing it registers the adapter with starhost/models:
//
//	import _ "github.com/crystal-star/crystal-star/starhost/models/deepseek"
//
// Thinking "off" sends thinking {"type": "disabled"}, any effort token
// {"type": "enabled"} ("default" sends nothing: the model decides). It
// takes no images and has no service tier or speed. See docs/models.md.
package deepseek

import (
	"context"

	"github.com/crystal-star/crystal-star/starhost/models"
	"github.com/crystal-star/crystal-star/starhost/models/internal/wire"
)

func init() { models.Register(Adapter{}) }

// Adapter is the adapter of protocol "deepseek".
type Adapter struct{}

// Protocol returns "deepseek".
func (Adapter) Protocol() string { return "deepseek" }

type request struct {
	Model       string           `json:"model"`
	Messages    []models.Message `json:"messages"`
	MaxTokens   int              `json:"max_tokens,omitempty"`
	Temperature *float64         `json:"temperature,omitempty"`
	TopP        *float64         `json:"top_p,omitempty"`
	Thinking    *thinking        `json:"thinking,omitempty"`
	Stream      bool             `json:"stream"`
}

type thinking struct {
	Type string `json:"type"` // "enabled" or "disabled"
}

// NewClient builds a DeepSeek client; a service tier or speed is not
// supported.
func (Adapter) NewClient(_ context.Context, cfg models.ClientConfig) (models.Client, error) {
	return wire.Post[request, wire.ChatReply]{Protocol: "deepseek", Path: "/chat/completions",
		Header: wire.Bearer(cfg.APIKey), Request: newRequest, Reply: readReply}.NewClient(cfg)
}

func newRequest(cfg models.ClientConfig, req models.Request) (request, error) {
	if len(req.Images) > 0 {
		return request{}, &models.Error{Code: models.CodeBadRequest, Detail: "the deepseek chat API takes no images"}
	}
	body := request{Model: cfg.Model.Name, Messages: req.Messages, MaxTokens: req.MaxTokens,
		Temperature: cfg.Facts.Temperature, TopP: cfg.Facts.TopP}
	switch {
	case req.Thinking == models.ThinkingOff:
		body.Thinking = &thinking{Type: "disabled"}
	case wire.SendsThinking(req.Thinking):
		body.Thinking = &thinking{Type: "enabled"}
	}
	return body, nil
}

// readReply is a chat completion's, except that DeepSeek always answers
// with content: a choice without it is malformed.
func readReply(r *wire.ChatReply) (models.Reply, error) {
	if len(r.Choices) == 0 || r.Choices[0].Message.Content == nil {
		return models.Reply{}, models.Malformed("the chat completion has no choices with content")
	}
	return wire.ReadChat(r)
}
