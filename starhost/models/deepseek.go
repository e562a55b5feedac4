package models

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
)

// DeepSeek is the built-in adapter of protocol "deepseek": DeepSeek's chat
// API (POST {endpoint}/chat/completions, Authorization: Bearer) over
// net/http — DeepSeek publishes no Go SDK. Thinking "off" sends
// thinking {"type": "disabled"}, any effort token {"type": "enabled"}
// ("default" sends nothing: the model decides). It takes no images and has
// no service tier or speed.
type DeepSeek struct{}

// Protocol returns "deepseek".
func (DeepSeek) Protocol() string { return "deepseek" }

type deepseekRequest struct {
	Model       string            `json:"model"`
	Messages    []Message         `json:"messages"`
	MaxTokens   int               `json:"max_tokens,omitempty"`
	Temperature *float64          `json:"temperature,omitempty"`
	TopP        *float64          `json:"top_p,omitempty"`
	Thinking    *deepseekThinking `json:"thinking,omitempty"`
	Stream      bool              `json:"stream"`
}

type deepseekThinking struct {
	Type string `json:"type"` // "enabled" or "disabled"
}

type deepseekReply struct {
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
func (DeepSeek) NewClient(_ context.Context, cfg ClientConfig) (Client, error) {
	if err := noTierOrSpeed("deepseek", cfg.Facts); err != nil {
		return nil, err
	}
	url := strings.TrimRight(cfg.Provider.Endpoint, "/") + "/chat/completions"
	header := bearer(cfg.APIKey)
	return newClient(cfg, func(ctx context.Context, req Request) (Reply, error) {
		if len(req.Images) > 0 {
			return Reply{}, &Error{Code: CodeBadRequest, Detail: "the deepseek chat API takes no images"}
		}
		body := deepseekRequest{Model: cfg.Model.Name, Messages: req.Messages, MaxTokens: req.MaxTokens,
			Temperature: cfg.Facts.Temperature, TopP: cfg.Facts.TopP}
		switch {
		case req.Thinking == ThinkingOff:
			body.Thinking = &deepseekThinking{Type: "disabled"}
		case sendsThinking(req.Thinking):
			body.Thinking = &deepseekThinking{Type: "enabled"}
		}
		var out deepseekReply
		if err := postJSON(ctx, cfg.HTTP, url, header, body, &out, openAIErrorMessage); err != nil {
			return Reply{}, err
		}
		if len(out.Choices) == 0 || out.Choices[0].Message.Content == nil {
			return Reply{}, Malformed("the chat completion has no choices with content")
		}
		ch := out.Choices[0]
		if ch.FinishReason == "content_filter" {
			return Reply{}, Refused("finish_reason content_filter")
		}
		return Reply{Text: *ch.Message.Content, FinishReason: ch.FinishReason,
			InputTokens: out.Usage.PromptTokens, OutputTokens: out.Usage.CompletionTokens}, nil
	}), nil
}

// openAIErrorMessage reads an OpenAI-shaped error body:
// {"error": {"message": ...}}.
func openAIErrorMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Message
}

// bearer returns the Authorization header of a bearer key (none without a
// key).
func bearer(key string) http.Header {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return h
}

// noTierOrSpeed refuses a service tier or speed for a protocol that has
// neither (CC9: a slot the adapter cannot honour is not_supported).
func noTierOrSpeed(protocol string, f Facts) error {
	switch {
	case f.ServiceTier != "":
		return contrib.NotSupported("the %s adapter has no service tier (tier %q); unset it with /tier", protocol, f.ServiceTier)
	case f.Speed != "":
		return contrib.NotSupported("the %s adapter has no speed setting (speed %q); unset it with /speed", protocol, f.Speed)
	}
	return nil
}
