package models

import (
	"context"
	"errors"
	"mime"
	"path"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/crystal-star/crystal-star/contrib"
)

// Gemini is the built-in adapter of protocol "gemini": generateContent
// (POST {endpoint}/v1beta/models/{model}:generateContent, x-goog-api-key)
// through the official SDK (google.golang.org/genai) on the Gemini API
// backend. The endpoint has no version path
// ("https://generativelanguage.googleapis.com"). A key is required: the
// SDK would otherwise fall back to GOOGLE_API_KEY or GEMINI_API_KEY, and
// the key must come from providers.json alone (CC9).
//
// Thinking: "off" sends thinkingBudget 0; a number is the thinking budget;
// another token is the thinkingLevel (low, medium, high; sent in the API's
// uppercase). The service tier goes to serviceTier (flex, standard,
// priority); it has no speed.
type Gemini struct{}

// Protocol returns "gemini".
func (Gemini) Protocol() string { return "gemini" }

// NewClient builds a generateContent client.
func (Gemini) NewClient(ctx context.Context, cfg ClientConfig) (Client, error) {
	if cfg.Facts.Speed != "" {
		return nil, contrib.NotSupported("the gemini adapter has no speed setting (speed %q); unset it with /speed", cfg.Facts.Speed)
	}
	if cfg.APIKey == "" {
		return nil, errors.New("the gemini adapter needs an API key: set api_key_env in providers.json and that variable")
	}
	gc, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: cfg.APIKey, Backend: genai.BackendGeminiAPI,
		HTTPClient: cfg.HTTP, HTTPOptions: genai.HTTPOptions{BaseURL: strings.TrimRight(cfg.Provider.Endpoint, "/") + "/"}})
	if err != nil {
		return nil, err
	}
	return newClient(cfg, func(ctx context.Context, req Request) (Reply, error) {
		contents, config, err := geminiParams(cfg, req)
		if err != nil {
			return Reply{}, err
		}
		resp, err := gc.Models.GenerateContent(ctx, cfg.Model.Name, contents, config)
		if err != nil {
			var ae genai.APIError
			if errors.As(err, &ae) {
				return Reply{}, &StatusError{Status: ae.Code, Msg: ae.Message}
			}
			return Reply{}, err
		}
		return geminiReply(resp)
	}), nil
}

func geminiParams(cfg ClientConfig, req Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	config := &genai.GenerateContentConfig{}
	if err := checkImages(cfg, req); err != nil {
		return nil, nil, err
	}
	system, conv := Split(req)
	if system != "" {
		config.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: system}}}
	}
	var contents []*genai.Content
	for i, m := range conv {
		role := genai.Role(genai.RoleUser)
		if m.Role == "assistant" {
			role = genai.RoleModel
		}
		parts := []*genai.Part{{Text: m.Content}}
		if i == len(conv)-1 {
			for _, u := range req.Images {
				part, err := geminiImage(u)
				if err != nil {
					return nil, nil, err
				}
				parts = append(parts, part)
			}
		}
		contents = append(contents, genai.NewContentFromParts(parts, role))
	}
	if req.MaxTokens > 0 {
		config.MaxOutputTokens = int32(req.MaxTokens)
	}
	if t := cfg.Facts.Temperature; t != nil {
		config.Temperature = genai.Ptr(float32(*t))
	}
	if t := cfg.Facts.TopP; t != nil {
		config.TopP = genai.Ptr(float32(*t))
	}
	if budget, err := strconv.ParseInt(req.Thinking, 10, 32); err == nil {
		config.ThinkingConfig = &genai.ThinkingConfig{ThinkingBudget: genai.Ptr(int32(budget))}
	} else if req.Thinking == ThinkingOff {
		config.ThinkingConfig = &genai.ThinkingConfig{ThinkingBudget: genai.Ptr(int32(0))}
	} else if sendsThinking(req.Thinking) {
		config.ThinkingConfig = &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevel(strings.ToUpper(req.Thinking))}
	}
	if cfg.Facts.ServiceTier != "" {
		config.ServiceTier = genai.ServiceTier(cfg.Facts.ServiceTier)
	}
	return contents, config, nil
}

// geminiImage is inline data for a data: URL, else file data by URI.
func geminiImage(u string) (*genai.Part, error) {
	mediaType, data, ok, err := DataURL(u)
	switch {
	case err != nil:
		return nil, &Error{Code: CodeBadRequest, Detail: err.Error()}
	case ok:
		return genai.NewPartFromBytes(data, mediaType), nil
	}
	mt := mime.TypeByExtension(path.Ext(u))
	if mt == "" {
		mt = "image/jpeg"
	}
	return genai.NewPartFromURI(u, mt), nil
}

// geminiBlocked are the finish reasons of an answer the model withheld.
var geminiBlocked = map[genai.FinishReason]bool{
	genai.FinishReasonSafety: true, genai.FinishReasonRecitation: true, genai.FinishReasonBlocklist: true,
	genai.FinishReasonProhibitedContent: true, genai.FinishReasonSPII: true, genai.FinishReasonImageSafety: true,
}

func geminiReply(resp *genai.GenerateContentResponse) (Reply, error) {
	if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
		return Reply{}, Refused("prompt blocked: %s", pf.BlockReason)
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return Reply{}, Malformed("the response has no candidates")
	}
	cand := resp.Candidates[0]
	if geminiBlocked[cand.FinishReason] {
		return Reply{}, Refused("finishReason %s", cand.FinishReason)
	}
	var b strings.Builder
	if cand.Content != nil {
		for _, p := range cand.Content.Parts {
			if p != nil && !p.Thought {
				b.WriteString(p.Text)
			}
		}
	}
	reply := Reply{Text: b.String(), FinishReason: string(cand.FinishReason)}
	if u := resp.UsageMetadata; u != nil {
		reply.InputTokens, reply.OutputTokens = int(u.PromptTokenCount), int(u.CandidatesTokenCount)
	}
	return reply, nil
}
