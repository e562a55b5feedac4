package models

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Ollama is the built-in adapter of protocol "ollama": Ollama's native chat
// API (POST {endpoint}/api/chat, non-streaming) over net/http — Ollama's
// own Go package (github.com/ollama/ollama/api) lives inside the server
// module and pulls it in whole. A key, when configured (Ollama's cloud),
// goes in Authorization: Bearer. Thinking "off" sends think=false; "on" or
// "true" think=true; other effort tokens (low, medium, high) are sent as
// the think string unchanged. Images must be data: URLs (Ollama takes raw
// base64). It has no service tier or speed.
type Ollama struct{}

// Protocol returns "ollama".
func (Ollama) Protocol() string { return "ollama" }

type ollamaMessage struct {
	Role    string   `json:"role"`
	Content string   `json:"content"`
	Images  []string `json:"images,omitempty"`
}

type ollamaRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Stream   bool            `json:"stream"`
	Think    any             `json:"think,omitempty"`
	Options  map[string]any  `json:"options,omitempty"`
}

type ollamaReply struct {
	Message *struct {
		Content string `json:"content"`
	} `json:"message"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int    `json:"prompt_eval_count"`
	EvalCount       int    `json:"eval_count"`
}

// NewClient builds an Ollama client; a service tier or speed is not
// supported.
func (Ollama) NewClient(_ context.Context, cfg ClientConfig) (Client, error) {
	if err := noTierOrSpeed("ollama", cfg.Facts); err != nil {
		return nil, err
	}
	url := strings.TrimRight(cfg.Provider.Endpoint, "/") + "/api/chat"
	header := bearer(cfg.APIKey)
	return newClient(cfg, func(ctx context.Context, req Request) (Reply, error) {
		body, err := ollamaBody(cfg, req)
		if err != nil {
			return Reply{}, err
		}
		var out ollamaReply
		if err := postJSON(ctx, cfg.HTTP, url, header, body, &out, ollamaErrorMessage); err != nil {
			return Reply{}, err
		}
		if out.Message == nil {
			return Reply{}, Malformed("the chat reply has no message")
		}
		return Reply{Text: out.Message.Content, FinishReason: out.DoneReason,
			InputTokens: out.PromptEvalCount, OutputTokens: out.EvalCount}, nil
	}), nil
}

func ollamaBody(cfg ClientConfig, req Request) (ollamaRequest, error) {
	body := ollamaRequest{Model: cfg.Model.Name, Options: map[string]any{}}
	if err := checkImages(cfg, req); err != nil {
		return body, err
	}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, ollamaMessage{Role: m.Role, Content: m.Content})
	}
	for _, u := range req.Images {
		_, data, ok, err := DataURL(u)
		if !ok || err != nil {
			return body, &Error{Code: CodeBadRequest, Detail: "ollama takes images only as data: URLs"}
		}
		last := &body.Messages[len(body.Messages)-1]
		last.Images = append(last.Images, base64.StdEncoding.EncodeToString(data))
	}
	switch t := req.Thinking; {
	case t == ThinkingOff:
		body.Think = false
	case t == "on" || t == "true":
		body.Think = true
	case sendsThinking(t):
		body.Think = t
	}
	if req.MaxTokens > 0 {
		body.Options["num_predict"] = req.MaxTokens
	}
	if t := cfg.Facts.Temperature; t != nil {
		body.Options["temperature"] = *t
	}
	if t := cfg.Facts.TopP; t != nil {
		body.Options["top_p"] = *t
	}
	return body, nil
}

// ollamaErrorMessage reads Ollama's error body: {"error": "..."}.
func ollamaErrorMessage(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error
}
