package models

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Anthropic is the built-in adapter of protocol "anthropic": the Messages
// API (POST {endpoint}/v1/messages, x-api-key and anthropic-version)
// through the official SDK, streamed — the SDK refuses a non-streamed call
// whose max_tokens may take longer than ten minutes, and a stream keeps a
// long answer's connection alive. The endpoint has no version path
// ("https://api.anthropic.com").
//
// Thinking: "off" disables it; a number is a thinking budget in tokens
// (max_tokens grows by it when needed); any other effort token (low,
// medium, high, xhigh, max) turns on adaptive thinking with that
// output_config.effort, unchanged. max_tokens is required: the request's,
// else the model's max_tokens fact, else 4096. The service tier goes to
// service_tier ("auto", "standard_only"), the speed to speed ("fast").
type Anthropic struct{}

// Protocol returns "anthropic".
func (Anthropic) Protocol() string { return "anthropic" }

// defaultAnthropicMaxTokens is max_tokens when neither the request nor the
// model's facts give one (the API requires it).
const defaultAnthropicMaxTokens = 4096

// NewClient builds a Messages API client.
func (Anthropic) NewClient(_ context.Context, cfg ClientConfig) (Client, error) {
	// The service is built directly (not through anthropic.NewClient), so
	// ANTHROPIC_* environment defaults never apply; retries are the
	// shared transport's.
	opts := []option.RequestOption{
		option.WithBaseURL(strings.TrimRight(cfg.Provider.Endpoint, "/") + "/"),
		option.WithHTTPClient(cfg.HTTP),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		// The Messages API's documented credential header; this SDK's
		// WithAPIKey would send it as a bearer token instead.
		opts = append(opts, option.WithHeader("x-api-key", cfg.APIKey))
	}
	// This SDK version's params have no sampling fields (newer models
	// reject them); the wire still takes temperature and top_p.
	if t := cfg.Facts.Temperature; t != nil {
		opts = append(opts, option.WithJSONSet("temperature", *t))
	}
	if t := cfg.Facts.TopP; t != nil {
		opts = append(opts, option.WithJSONSet("top_p", *t))
	}
	svc := anthropic.NewMessageService(opts...)
	return newClient(cfg, func(ctx context.Context, req Request) (Reply, error) {
		params, err := anthropicParams(cfg, req)
		if err != nil {
			return Reply{}, err
		}
		stream := svc.NewStreaming(ctx, params)
		defer stream.Close()
		var msg anthropic.Message
		for stream.Next() {
			if err := msg.Accumulate(stream.Current()); err != nil {
				return Reply{}, Malformed("stream: %v", err)
			}
		}
		if err := stream.Err(); err != nil {
			return Reply{}, anthropicError(err)
		}
		return anthropicReply(&msg)
	}), nil
}

func anthropicParams(cfg ClientConfig, req Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{Model: anthropic.Model(cfg.Model.Name), MaxTokens: defaultAnthropicMaxTokens}
	if err := checkImages(cfg, req); err != nil {
		return p, err
	}
	switch {
	case req.MaxTokens > 0:
		p.MaxTokens = int64(req.MaxTokens)
	case cfg.Facts.MaxTokens > 0:
		p.MaxTokens = int64(cfg.Facts.MaxTokens)
	}
	system, conv := Split(req)
	if system != "" {
		p.System = []anthropic.TextBlockParam{{Text: system}}
	}
	for i, m := range conv {
		blocks := []anthropic.ContentBlockParamUnion{anthropic.NewTextBlock(m.Content)}
		if m.Role == "assistant" {
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
			continue
		}
		if i == len(conv)-1 {
			for _, u := range req.Images {
				block, err := anthropicImage(u)
				if err != nil {
					return p, err
				}
				blocks = append(blocks, block)
			}
		}
		p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
	}
	if budget, err := strconv.ParseInt(req.Thinking, 10, 64); err == nil && budget > 0 {
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(budget)
		if p.MaxTokens <= budget {
			p.MaxTokens += budget
		}
	} else if req.Thinking == ThinkingOff {
		p.Thinking = anthropic.ThinkingConfigParamUnion{OfDisabled: &anthropic.ThinkingConfigDisabledParam{}}
	} else if sendsThinking(req.Thinking) {
		p.Thinking = anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{}}
		p.OutputConfig = anthropic.OutputConfigParam{Effort: anthropic.OutputConfigEffort(req.Thinking)}
	}
	if cfg.Facts.ServiceTier != "" {
		p.ServiceTier = anthropic.MessageNewParamsServiceTier(cfg.Facts.ServiceTier)
	}
	if cfg.Facts.Speed != "" {
		p.Speed = anthropic.MessageNewParamsSpeed(cfg.Facts.Speed)
	}
	return p, nil
}

// anthropicImage is an image block: base64 for a data: URL, else a URL
// source.
func anthropicImage(u string) (anthropic.ContentBlockParamUnion, error) {
	mediaType, data, ok, err := DataURL(u)
	switch {
	case err != nil:
		return anthropic.ContentBlockParamUnion{}, &Error{Code: CodeBadRequest, Detail: err.Error()}
	case ok:
		return anthropic.NewImageBlockBase64(mediaType, base64.StdEncoding.EncodeToString(data)), nil
	}
	return anthropic.NewImageBlock(anthropic.URLImageSourceParam{URL: u}), nil
}

func anthropicReply(msg *anthropic.Message) (Reply, error) {
	if msg.StopReason == anthropic.StopReasonRefusal {
		return Reply{}, Refused("stop_reason refusal")
	}
	if msg.ID == "" && len(msg.Content) == 0 {
		return Reply{}, Malformed("the stream carried no message")
	}
	var b strings.Builder
	for _, c := range msg.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return Reply{Text: b.String(), FinishReason: string(msg.StopReason),
		InputTokens: int(msg.Usage.InputTokens), OutputTokens: int(msg.Usage.OutputTokens)}, nil
}

// anthropicStreamStatus is the HTTP status Anthropic gives each error type,
// for an error event that arrives inside a stream.
var anthropicStreamStatus = map[string]int{"rate_limit_error": 429, "overloaded_error": 529, "api_error": 500,
	"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403, "not_found_error": 404}

// anthropicError turns the SDK's HTTP error, or an error event inside the
// stream ({"type": "error", "error": {"type": "overloaded_error", ...}}),
// into a StatusError.
func anthropicError(err error) error {
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		msg := ae.Message
		if msg == "" {
			msg = ae.RawJSON()
		}
		status := ae.StatusCode
		if status/100 == 2 || status == 0 { // an error event in a 200 stream: its type says which
			status = anthropicStreamStatus[string(ae.Type())]
			if status == 0 {
				status = http.StatusInternalServerError
			}
		}
		return &StatusError{Status: status, Msg: msg}
	}
	return err
}
