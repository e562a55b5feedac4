package models

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/crystal-star/crystal-star/contrib"
)

// Responses is the built-in adapter of protocol "responses": the OpenAI
// Responses API (POST {endpoint}/responses) through the official SDK. The
// system text goes to instructions, the conversation to input; thinking
// to reasoning.effort, the service tier to service_tier; it has no speed.
type Responses struct{}

// Protocol returns "responses".
func (Responses) Protocol() string { return "responses" }

// NewClient builds a Responses API client; a speed is not supported.
func (Responses) NewClient(_ context.Context, cfg ClientConfig) (Client, error) {
	if cfg.Facts.Speed != "" {
		return nil, contrib.NotSupported("the responses adapter has no speed setting (speed %q); unset it with /speed", cfg.Facts.Speed)
	}
	svc := responses.NewResponseService(openAIOptions(cfg)...)
	return newClient(cfg, func(ctx context.Context, req Request) (Reply, error) {
		params, err := responsesParams(cfg, req)
		if err != nil {
			return Reply{}, err
		}
		resp, err := svc.New(ctx, params)
		if err != nil {
			return Reply{}, openAIError(err)
		}
		return responsesReply(resp)
	}), nil
}

func responsesParams(cfg ClientConfig, req Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{Model: shared.ResponsesModel(cfg.Model.Name)}
	if err := checkImages(cfg, req); err != nil {
		return p, err
	}
	system, conv := Split(req)
	if system != "" {
		p.Instructions = openai.String(system)
	}
	var input responses.ResponseInputParam
	for i, m := range conv {
		role := responses.EasyInputMessageRoleUser
		if m.Role == "assistant" {
			role = responses.EasyInputMessageRoleAssistant
		}
		if i < len(conv)-1 || len(req.Images) == 0 {
			input = append(input, responses.ResponseInputItemParamOfMessage(m.Content, role))
			continue
		}
		parts := responses.ResponseInputMessageContentListParam{{OfInputText: &responses.ResponseInputTextParam{Text: m.Content}}}
		for _, u := range req.Images {
			parts = append(parts, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
				ImageURL: openai.String(u), Detail: responses.ResponseInputImageDetailAuto}})
		}
		input = append(input, responses.ResponseInputItemParamOfMessage(parts, role))
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = openai.Int(int64(req.MaxTokens))
	}
	if t := cfg.Facts.Temperature; t != nil {
		p.Temperature = openai.Float(*t)
	}
	if t := cfg.Facts.TopP; t != nil {
		p.TopP = openai.Float(*t)
	}
	if sendsThinking(req.Thinking) {
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(req.Thinking)}
	}
	if cfg.Facts.ServiceTier != "" {
		p.ServiceTier = responses.ResponseNewParamsServiceTier(cfg.Facts.ServiceTier)
	}
	return p, nil
}

// responsesReply reads a response: its output text, or the refusal or
// failure it reports instead.
func responsesReply(resp *responses.Response) (Reply, error) {
	for _, item := range resp.Output {
		for _, c := range item.Content {
			if c.Type == "refusal" {
				return Reply{}, Refused("%s", c.Refusal)
			}
		}
	}
	switch {
	case resp.Status == "failed":
		return Reply{}, &StatusError{Status: 500, Msg: resp.Error.Message}
	case resp.IncompleteDetails.Reason == "content_filter":
		return Reply{}, Refused("incomplete: content_filter")
	case len(resp.Output) == 0:
		return Reply{}, Malformed("the response has no output")
	}
	finish := string(resp.Status)
	if r := resp.IncompleteDetails.Reason; r != "" {
		finish = r
	}
	return Reply{Text: resp.OutputText(), FinishReason: finish,
		InputTokens: int(resp.Usage.InputTokens), OutputTokens: int(resp.Usage.OutputTokens)}, nil
}
