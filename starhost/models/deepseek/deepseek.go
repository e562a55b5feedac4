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

type reply struct {
	Choices []struct {
		Message struct {
			Content          *string `json:"content"`
			ReasoningContent string  `json:"reasoning_content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// NewClient builds a DeepSeek client; a service tier or speed is not
// supported.
func (Adapter) NewClient(_ context.Context, cfg models.ClientConfig) (models.Client, error) {
	if err := wire.NoTierOrSpeed("deepseek", cfg.Facts); err != nil {
		return nil, err
	}
	url, header := wire.URL(cfg, "/chat/completions"), wire.Bearer(cfg.APIKey)
	hc := wire.HTTP(cfg)
	return wire.Client(cfg, func(ctx context.Context, req models.Request) (models.Reply, error) {
		if len(req.Images) > 0 {
			return models.Reply{}, &models.Error{Code: models.CodeBadRequest, Detail: "the deepseek chat API takes no images"}
		}
		body := request{Model: cfg.Model.Name, Messages: req.Messages, MaxTokens: req.MaxTokens,
			Temperature: cfg.Facts.Temperature, TopP: cfg.Facts.TopP}
		switch {
		case req.Thinking == models.ThinkingOff:
			body.Thinking = &thinking{Type: "disabled"}
		case wire.SendsThinking(req.Thinking):
			body.Thinking = &thinking{Type: "enabled"}
		}
		var out reply
		if err := wire.PostJSON(ctx, hc, url, header, body, &out, wire.OpenAIErrorMessage); err != nil {
			return models.Reply{}, err
		}
		if len(out.Choices) == 0 || out.Choices[0].Message.Content == nil {
			return models.Reply{}, models.Malformed("the chat completion has no choices with content")
		}
		ch := out.Choices[0]
		if ch.FinishReason == "content_filter" {
			return models.Reply{}, models.Refused("finish_reason content_filter")
		}
		return models.Reply{Text: *ch.Message.Content, FinishReason: ch.FinishReason,
			InputTokens: out.Usage.PromptTokens, OutputTokens: out.Usage.CompletionTokens}, nil
	}), nil
}
