package models

import (
	"context"
	"errors"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/crystal-star/crystal-star/contrib"
)

// OpenAI is the built-in adapter of protocol "openai": chat completions
// (POST {endpoint}/chat/completions) through the official SDK
// (github.com/openai/openai-go/v3). The endpoint includes the API version
// ("https://api.openai.com/v1"). Thinking is sent as reasoning_effort (not
// for the sentinels), the service tier as service_tier; it has no speed.
type OpenAI struct{}

// Protocol returns "openai".
func (OpenAI) Protocol() string { return "openai" }

// NewClient builds a chat completions client; a speed is not supported.
func (OpenAI) NewClient(_ context.Context, cfg ClientConfig) (Client, error) {
	if cfg.Facts.Speed != "" {
		return nil, contrib.NotSupported("the openai adapter has no speed setting (speed %q); unset it with /speed", cfg.Facts.Speed)
	}
	svc := openai.NewChatCompletionService(openAIOptions(cfg)...)
	return newClient(cfg, func(ctx context.Context, req Request) (Reply, error) {
		params, err := chatParams(cfg, req)
		if err != nil {
			return Reply{}, err
		}
		resp, err := svc.New(ctx, params)
		if err != nil {
			return Reply{}, openAIError(err)
		}
		if len(resp.Choices) == 0 {
			return Reply{}, Malformed("the chat completion has no choices")
		}
		ch := resp.Choices[0]
		switch {
		case ch.Message.Refusal != "":
			return Reply{}, Refused("%s", ch.Message.Refusal)
		case ch.FinishReason == "content_filter":
			return Reply{}, Refused("finish_reason content_filter")
		}
		return Reply{Text: ch.Message.Content, FinishReason: ch.FinishReason,
			InputTokens: int(resp.Usage.PromptTokens), OutputTokens: int(resp.Usage.CompletionTokens)}, nil
	}), nil
}

// openAIOptions configures an SDK service from providers.json alone: the
// services are built directly (not through openai.NewClient), so the
// SDK's OPENAI_* environment defaults never apply, and its retries are off
// (the shared transport retries 429 for every protocol alike).
func openAIOptions(cfg ClientConfig) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithBaseURL(strings.TrimRight(cfg.Provider.Endpoint, "/") + "/"),
		option.WithHTTPClient(cfg.HTTP),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.Provider.Organization != "" {
		opts = append(opts, option.WithOrganization(cfg.Provider.Organization))
	}
	if cfg.Provider.Project != "" {
		opts = append(opts, option.WithProject(cfg.Provider.Project))
	}
	return opts
}

func chatParams(cfg ClientConfig, req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(cfg.Model.Name)}
	if err := checkImages(cfg, req); err != nil {
		return p, err
	}
	for i, m := range req.Messages {
		switch {
		case m.Role == "system":
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case m.Role == "assistant":
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		case i == len(req.Messages)-1 && len(req.Images) > 0:
			parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(m.Content)}
			for _, u := range req.Images {
				parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: u}))
			}
			p.Messages = append(p.Messages, openai.UserMessage(parts))
		default:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		}
	}
	if req.MaxTokens > 0 {
		p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if t := cfg.Facts.Temperature; t != nil {
		p.Temperature = openai.Float(*t)
	}
	if t := cfg.Facts.TopP; t != nil {
		p.TopP = openai.Float(*t)
	}
	if sendsThinking(req.Thinking) {
		p.ReasoningEffort = shared.ReasoningEffort(req.Thinking) // forwarded unchanged (CC21)
	}
	if cfg.Facts.ServiceTier != "" {
		p.ServiceTier = openai.ChatCompletionNewParamsServiceTier(cfg.Facts.ServiceTier)
	}
	return p, nil
}

// openAIError turns the SDK's HTTP error into a StatusError (OpenAI's
// error body: {"error": {"message": ...}}).
func openAIError(err error) error {
	var ae *openai.Error
	if errors.As(err, &ae) {
		msg := ae.Message
		if msg == "" {
			msg = ae.RawJSON()
		}
		return &StatusError{Status: ae.StatusCode, Msg: msg}
	}
	return err
}
