package wire

import (
	"context"
	"net/http"

	"github.com/crystal-star/crystal-star/starhost/models"
)

// Post is a protocol whose call is one JSON POST answered by one JSON
// reply: what such an adapter declares. Post.NewClient does the rest the
// protocols do alike: it refuses a service tier or speed the protocol
// lacks, joins the endpoint and path, sends with the shared HTTP client and
// classifies every failure.
type Post[Body, Reply any] struct {
	Protocol string // named in refusals ("openai")
	HasTier  bool   // the protocol sends a service tier (none has a speed)
	// Check, when set, refuses a configuration the protocol cannot serve;
	// it runs after the tier and speed refusals.
	Check        func(models.ClientConfig) error
	Path         string              // appended to the provider's endpoint
	Header       http.Header         // sent with every request
	ErrorMessage func([]byte) string // reads an error body; nil: OpenAIErrorMessage
	Request      func(models.ClientConfig, models.Request) (Body, error)
	Reply        func(*Reply) (models.Reply, error)
}

// NewClient builds p's client for cfg.
func (p Post[Body, Reply]) NewClient(cfg models.ClientConfig) (models.Client, error) {
	refuse := NoTierOrSpeed
	if p.HasTier {
		refuse = NoSpeed
	}
	if err := refuse(p.Protocol, cfg.Facts); err != nil {
		return nil, err
	}
	if p.Check != nil {
		if err := p.Check(cfg); err != nil {
			return nil, err
		}
	}
	errMsg := p.ErrorMessage
	if errMsg == nil {
		errMsg = OpenAIErrorMessage
	}
	url, hc := URL(cfg, p.Path), HTTP(cfg)
	return Client(cfg, func(ctx context.Context, req models.Request) (models.Reply, error) {
		body, err := p.Request(cfg, req)
		if err != nil {
			return models.Reply{}, err
		}
		var out Reply
		if err := PostJSON(ctx, hc, url, p.Header, body, &out, errMsg); err != nil {
			return models.Reply{}, err
		}
		return p.Reply(&out)
	}), nil
}

// ChatReply is a chat completions reply, OpenAI's and those of the APIs
// shaped like it (DeepSeek): the choices' messages, why each stopped, and
// the usage.
type ChatReply struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// ReadChat reads the first choice's text, finish reason and the usage. A
// refusal or a content_filter finish is Refused; a reply without choices
// is Malformed; a null content is no text (a reply that only calls tools).
func ReadChat(r *ChatReply) (models.Reply, error) {
	if len(r.Choices) == 0 {
		return models.Reply{}, models.Malformed("the chat completion has no choices")
	}
	ch := r.Choices[0]
	switch {
	case ch.Message.Refusal != nil && *ch.Message.Refusal != "":
		return models.Reply{}, models.Refused("%s", *ch.Message.Refusal)
	case ch.FinishReason == "content_filter":
		return models.Reply{}, models.Refused("finish_reason content_filter")
	}
	text := ""
	if ch.Message.Content != nil {
		text = *ch.Message.Content
	}
	return models.Reply{Text: text, FinishReason: ch.FinishReason,
		InputTokens: r.Usage.PromptTokens, OutputTokens: r.Usage.CompletionTokens}, nil
}
