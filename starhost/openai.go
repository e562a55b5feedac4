package starhost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
)

// maxResponseBody bounds a model response the host reads.
const maxResponseBody = 16 << 20

// openAIClient is the built-in adapter of protocol "openai": OpenAI-compatible
// chat completions (POST {endpoint}/chat/completions) over real HTTP. The
// thinking effort is sent as reasoning_effort (not for the sentinels), the
// service tier as service_tier. It has no speed setting.
type openAIClient struct {
	http     *http.Client
	endpoint string
	key      string
	org      string
	project  string
	facts    ModelFacts
	images   bool
}

func newOpenAIClient(hc *http.Client, p *Provider, f ModelFacts, key string, images bool) (*openAIClient, error) {
	if f.Speed != "" {
		return nil, contrib.NotSupported("the openai adapter has no speed setting (speed %q); unset it with /speed", f.Speed)
	}
	return &openAIClient{http: hc, endpoint: strings.TrimRight(p.Endpoint, "/"), key: key,
		org: p.Organization, project: p.Project, facts: f, images: images}, nil
}

type openAIPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	ImageURL *openAIImageURL `json:"image_url,omitempty"`
}

type openAIImageURL struct {
	URL string `json:"url"`
}

type openAIMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"` // a string, or parts with images
}

type openAIRequest struct {
	Model           string          `json:"model"`
	Messages        []openAIMessage `json:"messages"`
	MaxTokens       int             `json:"max_tokens,omitempty"`
	Temperature     *float64        `json:"temperature,omitempty"`
	TopP            *float64        `json:"top_p,omitempty"`
	ReasoningEffort string          `json:"reasoning_effort,omitempty"`
	ServiceTier     string          `json:"service_tier,omitempty"`
}

type openAIResponse struct {
	Choices []struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (c *openAIClient) body(req ModelRequest) ([]byte, error) {
	out := openAIRequest{Model: c.facts.Model, MaxTokens: req.MaxTokens, Temperature: c.facts.Temperature,
		TopP: c.facts.TopP, ServiceTier: c.facts.ServiceTier}
	if t := req.Thinking; t != "" && t != ThinkingDefault && t != ThinkingOff {
		out.ReasoningEffort = t // forwarded unchanged (CC21)
	}
	if len(req.Images) > 0 && !c.images {
		return nil, fmt.Errorf("images are accepted only by the images client")
	}
	for i, m := range req.Messages {
		msg := openAIMessage{Role: m.Role, Content: m.Content}
		if i == len(req.Messages)-1 && len(req.Images) > 0 {
			parts := []openAIPart{{Type: "text", Text: m.Content}}
			for _, u := range req.Images {
				parts = append(parts, openAIPart{Type: "image_url", ImageURL: &openAIImageURL{URL: u}})
			}
			msg.Content = parts
		}
		out.Messages = append(out.Messages, msg)
	}
	return json.Marshal(out)
}

// Complete sends one chat completion; it returns when ctx ends.
func (c *openAIClient) Complete(ctx context.Context, req ModelRequest) (ModelReply, error) {
	body, err := c.body(req)
	if err != nil {
		return ModelReply{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return ModelReply{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if c.key != "" {
		hr.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.org != "" {
		hr.Header.Set("OpenAI-Organization", c.org)
	}
	if c.project != "" {
		hr.Header.Set("OpenAI-Project", c.project)
	}
	status, _, data, err := send(c.http, hr)
	if err != nil {
		return ModelReply{}, err
	}
	var resp openAIResponse
	jerr := json.Unmarshal(data, &resp)
	switch {
	case status/100 != 2:
		msg := strings.TrimSpace(string(data))
		if jerr == nil && resp.Error != nil {
			msg = resp.Error.Message
		}
		return ModelReply{}, fmt.Errorf("HTTP %d: %s", status, clip(msg))
	case jerr != nil:
		return ModelReply{}, fmt.Errorf("the response is not chat completions JSON: %v", jerr)
	case len(resp.Choices) == 0:
		return ModelReply{}, fmt.Errorf("the response has no choices")
	}
	ch := resp.Choices[0]
	return ModelReply{Text: contentText(ch.Message.Content), FinishReason: ch.FinishReason,
		InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens}, nil
}

// contentText reads message content: a string or a list of text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []openAIPart
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// send performs one HTTP call and reads at most maxResponseBody bytes.
func send(hc *http.Client, req *http.Request) (int, http.Header, []byte, error) {
	resp, err := hc.Do(req)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return 0, nil, nil, fmt.Errorf("the model call was cancelled: %w", ctxErr)
		}
		return 0, nil, nil, fmt.Errorf("the model call failed: %v", scrubURL(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody+1))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("reading the model response: %v", scrubURL(err))
	}
	if len(data) > maxResponseBody {
		return 0, nil, nil, fmt.Errorf("the model response is larger than %d bytes", maxResponseBody)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// scrubURL keeps the endpoint out of error text (CC22: plugins never see
// endpoints).
func scrubURL(err error) error {
	if ue, ok := err.(interface{ Unwrap() error }); ok {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
