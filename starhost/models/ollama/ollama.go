// Package ollama is the model adapter of protocol "ollama": Ollama's native
// chat API (POST {endpoint}/api/chat, non-streaming) over net/http.
// Importing it registers the adapter with starhost/models:
//
//	import _ "github.com/crystal-star/crystal-star/starhost/models/ollama"
//
// A key, when configured (Ollama's cloud), goes in Authorization: Bearer.
// Thinking "off" sends think=false; "on" or "true" think=true; other
// effort tokens (low, medium, high) are sent as the think string
// unchanged. Images must be data: URLs (Ollama takes raw base64). It has
// no service tier or speed. See docs/models.md.
package ollama

import (
	"context"
	"encoding/base64"
	"encoding/json"

	"github.com/crystal-star/crystal-star/starhost/models"
	"github.com/crystal-star/crystal-star/starhost/models/internal/wire"
)

func init() { models.Register(Adapter{}) }

// Adapter is the adapter of protocol "ollama".
type Adapter struct{}

// Protocol returns "ollama".
func (Adapter) Protocol() string { return "ollama" }

type message struct {
	Role    string   `json:"role"`
	Content string   `json:"content"`
	Images  []string `json:"images,omitempty"`
}

type request struct {
	Model    string         `json:"model"`
	Messages []message      `json:"messages"`
	Stream   bool           `json:"stream"`
	Think    any            `json:"think,omitempty"`
	Options  map[string]any `json:"options,omitempty"`
}

type reply struct {
	Message *struct {
		Content string `json:"content"`
	} `json:"message"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int    `json:"prompt_eval_count"`
	EvalCount       int    `json:"eval_count"`
}

// NewClient builds an Ollama client; a service tier or speed is not
// supported.
func (Adapter) NewClient(_ context.Context, cfg models.ClientConfig) (models.Client, error) {
	return wire.Post[request, reply]{Protocol: "ollama", Path: "/api/chat", Header: wire.Bearer(cfg.APIKey),
		ErrorMessage: errorMessage, Request: newRequest, Reply: readReply}.NewClient(cfg)
}

func readReply(r *reply) (models.Reply, error) {
	if r.Message == nil {
		return models.Reply{}, models.Malformed("the chat reply has no message")
	}
	return models.Reply{Text: r.Message.Content, FinishReason: r.DoneReason,
		InputTokens: r.PromptEvalCount, OutputTokens: r.EvalCount}, nil
}

func newRequest(cfg models.ClientConfig, req models.Request) (request, error) {
	body := request{Model: cfg.Model.Name, Options: map[string]any{}}
	if err := wire.CheckImages(cfg, req); err != nil {
		return body, err
	}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, message{Role: m.Role, Content: m.Content})
	}
	for _, u := range req.Images {
		_, data, ok, err := models.DataURL(u)
		if !ok || err != nil {
			return body, &models.Error{Code: models.CodeBadRequest, Detail: "ollama takes images only as data: URLs"}
		}
		last := &body.Messages[len(body.Messages)-1]
		last.Images = append(last.Images, base64.StdEncoding.EncodeToString(data))
	}
	switch t := req.Thinking; {
	case t == models.ThinkingOff:
		body.Think = false
	case t == "on" || t == "true":
		body.Think = true
	case wire.SendsThinking(t):
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

// errorMessage reads Ollama's error body: {"error": "..."}.
func errorMessage(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error
}
