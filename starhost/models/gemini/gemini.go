// Package gemini is the model adapter of protocol "gemini": the Gemini
// API's generateContent (POST
// {endpoint}/v1beta/models/{model}:generateContent, x-goog-api-key) over
// net/http. Importing it registers the adapter with starhost/models:
//
//	import _ "github.com/crystal-star/crystal-star/starhost/models/gemini"
//
// The endpoint has no version path
// ("https://generativelanguage.googleapis.com"). A key is required, and it
// comes from providers.json alone (CC9): no GOOGLE_API_KEY or
// GEMINI_API_KEY fallback.
//
// Thinking: "off" sends thinkingBudget 0; a number is the thinking budget;
// another token is the thinkingLevel (low, medium, high; sent in the API's
// uppercase). The service tier goes to serviceTier (flex, standard,
// priority); it has no speed. See docs/models.md.
package gemini

import (
	"context"
	"encoding/base64"
	"errors"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/crystal-star/crystal-star/starhost/models"
	"github.com/crystal-star/crystal-star/starhost/models/internal/wire"
)

func init() { models.Register(Adapter{}) }

// Adapter is the adapter of protocol "gemini".
type Adapter struct{}

// Protocol returns "gemini".
func (Adapter) Protocol() string { return "gemini" }

type request struct {
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
	ServiceTier       string            `json:"serviceTier,omitempty"`
}

type content struct {
	Role  string `json:"role,omitempty"` // "user" or "model"
	Parts []part `json:"parts"`
}

type part struct {
	Text       *string   `json:"text,omitempty"`
	InlineData *blob     `json:"inlineData,omitempty"`
	FileData   *fileData `json:"fileData,omitempty"`
}

type blob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"` // base64
}

type fileData struct {
	MimeType string `json:"mimeType"`
	FileURI  string `json:"fileUri"`
}

type generationConfig struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	Temperature     *float64        `json:"temperature,omitempty"`
	TopP            *float64        `json:"topP,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	ThinkingBudget *int64 `json:"thinkingBudget,omitempty"`
	ThinkingLevel  string `json:"thinkingLevel,omitempty"`
}

type reply struct {
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	Candidates []*struct {
		Content *struct {
			Parts []struct {
				Text    string `json:"text"`
				Thought bool   `json:"thought"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
	} `json:"usageMetadata"`
}

// NewClient builds a generateContent client; a speed is not supported,
// and a key is required.
func (Adapter) NewClient(_ context.Context, cfg models.ClientConfig) (models.Client, error) {
	header := http.Header{}
	header.Set("X-Goog-Api-Key", cfg.APIKey)
	return wire.Post[request, reply]{Protocol: "gemini", HasTier: true, Check: needsKey,
		Path: "/v1beta/" + modelPath(cfg.Model.Name) + ":generateContent", Header: header,
		Request: newRequest, Reply: readReply}.NewClient(cfg)
}

func needsKey(cfg models.ClientConfig) error {
	if cfg.APIKey == "" {
		return errors.New("the gemini adapter needs an API key: set api_key_env in providers.json and that variable")
	}
	return nil
}

// modelPath is the resource name of a model: "models/NAME", or the name
// as given when it already names a collection ("tunedModels/x").
func modelPath(name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	return "models/" + name
}

func newRequest(cfg models.ClientConfig, req models.Request) (request, error) {
	var body request
	if err := wire.CheckImages(cfg, req); err != nil {
		return body, err
	}
	system, conv := models.Split(req)
	if system != "" {
		body.SystemInstruction = &content{Parts: []part{{Text: &system}}}
	}
	for i, m := range conv {
		c := content{Role: "user", Parts: []part{{Text: &m.Content}}}
		if m.Role == "assistant" {
			c.Role = "model"
		}
		if i == len(conv)-1 {
			for _, u := range req.Images {
				p, err := image(u)
				if err != nil {
					return body, err
				}
				c.Parts = append(c.Parts, p)
			}
		}
		body.Contents = append(body.Contents, c)
	}
	g := generationConfig{MaxOutputTokens: req.MaxTokens, Temperature: cfg.Facts.Temperature, TopP: cfg.Facts.TopP}
	if budget, err := strconv.ParseInt(req.Thinking, 10, 32); err == nil {
		g.ThinkingConfig = &thinkingConfig{ThinkingBudget: &budget}
	} else if req.Thinking == models.ThinkingOff {
		zero := int64(0)
		g.ThinkingConfig = &thinkingConfig{ThinkingBudget: &zero}
	} else if wire.SendsThinking(req.Thinking) {
		g.ThinkingConfig = &thinkingConfig{ThinkingLevel: strings.ToUpper(req.Thinking)}
	}
	if g != (generationConfig{}) {
		body.GenerationConfig = &g
	}
	body.ServiceTier = cfg.Facts.ServiceTier
	return body, nil
}

// image is inline data for a data: URL, else file data by URI.
func image(u string) (part, error) {
	mediaType, data, ok, err := models.DataURL(u)
	switch {
	case err != nil:
		return part{}, wire.BadImage(err)
	case ok:
		return part{InlineData: &blob{MimeType: mediaType, Data: base64.StdEncoding.EncodeToString(data)}}, nil
	}
	mt := mime.TypeByExtension(path.Ext(u))
	if mt == "" {
		mt = "image/jpeg"
	}
	return part{FileData: &fileData{MimeType: mt, FileURI: u}}, nil
}

// blocked are the finish reasons of an answer the model withheld.
var blocked = map[string]bool{"SAFETY": true, "RECITATION": true, "BLOCKLIST": true,
	"PROHIBITED_CONTENT": true, "SPII": true, "IMAGE_SAFETY": true}

func readReply(resp *reply) (models.Reply, error) {
	if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
		return models.Reply{}, models.Refused("prompt blocked: %s", pf.BlockReason)
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return models.Reply{}, models.Malformed("the response has no candidates")
	}
	cand := resp.Candidates[0]
	if blocked[cand.FinishReason] {
		return models.Reply{}, models.Refused("finishReason %s", cand.FinishReason)
	}
	var b strings.Builder
	if cand.Content != nil {
		for _, p := range cand.Content.Parts {
			if !p.Thought {
				b.WriteString(p.Text)
			}
		}
	}
	out := models.Reply{Text: b.String(), FinishReason: cand.FinishReason}
	if u := resp.UsageMetadata; u != nil {
		out.InputTokens, out.OutputTokens = u.PromptTokenCount, u.CandidatesTokenCount
	}
	return out, nil
}
