// Package anthropic is the model adapter of protocol "anthropic": the
// Messages API (POST {endpoint}/v1/messages, x-api-key and
// anthropic-version) over net/http, streamed as server-sent events — a
// stream keeps a long answer's connection alive. Importing it registers
// the adapter with starhost/models:
//
//	import _ "github.com/crystal-star/crystal-star/starhost/models/anthropic"
//
// The endpoint has no version path ("https://api.anthropic.com").
//
// Thinking: "off" disables it; a number is a thinking budget in tokens
// (max_tokens grows by it when needed); any other effort token (low,
// medium, high, xhigh, max) turns on adaptive thinking with that
// output_config.effort, unchanged. max_tokens is required: the request's,
// else the model's max_tokens fact, else 4096. The service tier goes to
// service_tier ("auto", "standard_only"), the speed to speed ("fast").
// See docs/models.md.
package anthropic

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/crystal-star/crystal-star/starhost/models"
	"github.com/crystal-star/crystal-star/starhost/models/internal/wire"
	"github.com/crystal-star/crystal-star/starhost/models/modelhttp"
)

func init() { models.Register(Adapter{}) }

// Adapter is the adapter of protocol "anthropic".
type Adapter struct{}

// Protocol returns "anthropic".
func (Adapter) Protocol() string { return "anthropic" }

// Version is the anthropic-version header every request carries.
const Version = "2023-06-01"

// defaultMaxTokens is max_tokens when neither the request nor the model's
// facts give one (the API requires it).
const defaultMaxTokens = 4096

type request struct {
	Model        string        `json:"model"`
	MaxTokens    int           `json:"max_tokens"`
	System       []textBlock   `json:"system,omitempty"`
	Messages     []message     `json:"messages"`
	Temperature  *float64      `json:"temperature,omitempty"`
	TopP         *float64      `json:"top_p,omitempty"`
	Thinking     *thinking     `json:"thinking,omitempty"`
	OutputConfig *outputConfig `json:"output_config,omitempty"`
	ServiceTier  string        `json:"service_tier,omitempty"`
	Speed        string        `json:"speed,omitempty"`
	Stream       bool          `json:"stream"`
}

type message struct {
	Role    string `json:"role"`
	Content []any  `json:"content"` // textBlock and imageBlock
}

type textBlock struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type imageBlock struct {
	Type   string      `json:"type"` // "image"
	Source imageSource `json:"source"`
}

type imageSource struct {
	Type      string `json:"type"` // "base64" or "url"
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type thinking struct {
	Type         string `json:"type"` // "enabled", "disabled" or "adaptive"
	BudgetTokens int64  `json:"budget_tokens,omitempty"`
}

type outputConfig struct {
	Effort string `json:"effort"`
}

// NewClient builds a Messages API client.
func (Adapter) NewClient(_ context.Context, cfg models.ClientConfig) (models.Client, error) {
	url, hc := wire.URL(cfg, "/v1/messages"), wire.HTTP(cfg)
	header := http.Header{}
	header.Set("Anthropic-Version", Version)
	if cfg.APIKey != "" {
		header.Set("X-Api-Key", cfg.APIKey)
	}
	return wire.Client(cfg, func(ctx context.Context, req models.Request) (models.Reply, error) {
		body, err := newRequest(cfg, req)
		if err != nil {
			return models.Reply{}, err
		}
		hr, err := wire.NewRequest(ctx, url, header, body)
		if err != nil {
			return models.Reply{}, err
		}
		hr.Header.Set("Accept", "text/event-stream")
		return stream(hc, hr)
	}), nil
}

func newRequest(cfg models.ClientConfig, req models.Request) (request, error) {
	p := request{Model: cfg.Model.Name, MaxTokens: defaultMaxTokens, Temperature: cfg.Facts.Temperature,
		TopP: cfg.Facts.TopP, ServiceTier: cfg.Facts.ServiceTier, Speed: cfg.Facts.Speed, Stream: true}
	if err := wire.CheckImages(cfg, req); err != nil {
		return p, err
	}
	switch {
	case req.MaxTokens > 0:
		p.MaxTokens = req.MaxTokens
	case cfg.Facts.MaxTokens > 0:
		p.MaxTokens = cfg.Facts.MaxTokens
	}
	system, conv := models.Split(req)
	if system != "" {
		p.System = []textBlock{{Type: "text", Text: system}}
	}
	for i, m := range conv {
		msg := message{Role: "user", Content: []any{textBlock{Type: "text", Text: m.Content}}}
		if m.Role == "assistant" {
			msg.Role = "assistant"
		} else if i == len(conv)-1 {
			for _, u := range req.Images {
				block, err := image(u)
				if err != nil {
					return p, err
				}
				msg.Content = append(msg.Content, block)
			}
		}
		p.Messages = append(p.Messages, msg)
	}
	if budget, err := strconv.ParseInt(req.Thinking, 10, 64); err == nil && budget > 0 {
		p.Thinking = &thinking{Type: "enabled", BudgetTokens: budget}
		if int64(p.MaxTokens) <= budget {
			p.MaxTokens += int(budget)
		}
	} else if req.Thinking == models.ThinkingOff {
		p.Thinking = &thinking{Type: "disabled"}
	} else if wire.SendsThinking(req.Thinking) {
		p.Thinking = &thinking{Type: "adaptive"}
		p.OutputConfig = &outputConfig{Effort: req.Thinking}
	}
	return p, nil
}

// image is an image block: base64 for a data: URL, else a URL source.
func image(u string) (imageBlock, error) {
	mediaType, data, ok, err := models.DataURL(u)
	switch {
	case err != nil:
		return imageBlock{}, wire.BadImage(err)
	case ok:
		return imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: mediaType,
			Data: base64.StdEncoding.EncodeToString(data)}}, nil
	}
	return imageBlock{Type: "image", Source: imageSource{Type: "url", URL: u}}, nil
}

// streamStatus is the HTTP status Anthropic gives each error type, for an
// error event that arrives inside a stream.
var streamStatus = map[string]int{"rate_limit_error": 429, "overloaded_error": 529, "api_error": 500,
	"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403, "not_found_error": 404,
	"request_too_large": 413, "billing_error": 402}

// stream sends hr and reads the answer's events into a reply. An error
// answer before the stream is a StatusError; an error event inside it is
// one too, with the status its type has.
func stream(hc *http.Client, hr *http.Request) (models.Reply, error) {
	resp, err := hc.Do(hr)
	if err != nil {
		return models.Reply{}, modelhttp.Failure(hr.Context(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		data, err := io.ReadAll(io.LimitReader(resp.Body, models.MaxResponseBody))
		if err != nil {
			return models.Reply{}, modelhttp.Failure(hr.Context(), err)
		}
		return models.Reply{}, wire.StatusError(resp.StatusCode, data, wire.OpenAIErrorMessage)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return models.Reply{}, models.Malformed("the answer is %q, not an event stream", mt)
	}
	var acc accumulator
	if err := wire.Events(resp.Body, acc.event); err != nil {
		return models.Reply{}, modelhttp.Failure(hr.Context(), err)
	}
	return acc.reply()
}

// accumulator builds the message from its stream's events: message_start,
// content_block_start / _delta / _stop, message_delta, message_stop; ping
// and event types it does not know are skipped, as the API's versioning
// policy asks.
type accumulator struct {
	started, stopped bool
	blocks           []block
	stopReason       string
	input, output    int
}

// block is one content block: its type and, for text blocks, its text.
type block struct {
	kind string
	text []byte
}

type event struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID    string `json:"id"`
		Usage usage  `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content_block"`
	Delta *struct {
		Type       string `json:"type"`
		Text       string `json:"text"`
		StopReason string `json:"stop_reason"`
	} `json:"delta"`
	Usage *usage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

func (a *accumulator) event(name string, data []byte) error {
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return models.Malformed("stream event %s: %v", name, err)
	}
	if ev.Type == "" {
		ev.Type = name
	}
	switch ev.Type {
	case "error":
		kind, msg := "api_error", ""
		if ev.Error != nil {
			kind, msg = ev.Error.Type, ev.Error.Message
		}
		status, ok := streamStatus[kind]
		if !ok {
			status = http.StatusInternalServerError
		}
		return &models.StatusError{Status: status, Msg: msg}
	case "message_start":
		if ev.Message == nil {
			return models.Malformed("message_start carries no message")
		}
		a.started = true
		a.input, a.output = ev.Message.Usage.InputTokens, ev.Message.Usage.OutputTokens
	case "content_block_start":
		if !a.started || ev.ContentBlock == nil || ev.Index != len(a.blocks) {
			return models.Malformed("content_block_start %d out of order", ev.Index)
		}
		a.blocks = append(a.blocks, block{kind: ev.ContentBlock.Type, text: []byte(ev.ContentBlock.Text)})
	case "content_block_delta":
		if ev.Index < 0 || ev.Index >= len(a.blocks) || ev.Delta == nil {
			return models.Malformed("content_block_delta for block %d, which has not started", ev.Index)
		}
		if b := &a.blocks[ev.Index]; b.kind == "text" && ev.Delta.Type == "text_delta" {
			b.text = append(b.text, ev.Delta.Text...)
		}
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			a.stopReason = ev.Delta.StopReason
		}
		if u := ev.Usage; u != nil {
			a.output = u.OutputTokens
			if u.InputTokens > 0 {
				a.input = u.InputTokens
			}
		}
	case "message_stop":
		a.stopped = true
	}
	return nil
}

// reply is the accumulated message, once the stream said message_stop.
func (a *accumulator) reply() (models.Reply, error) {
	switch {
	case !a.started:
		return models.Reply{}, models.Malformed("the stream carried no message")
	case !a.stopped:
		return models.Reply{}, io.ErrUnexpectedEOF // the connection closed mid-answer
	case a.stopReason == "refusal":
		return models.Reply{}, models.Refused("stop_reason refusal")
	}
	var text []byte
	for _, b := range a.blocks {
		if b.kind == "text" {
			text = append(text, b.text...)
		}
	}
	return models.Reply{Text: string(text), FinishReason: a.stopReason, InputTokens: a.input, OutputTokens: a.output}, nil
}
