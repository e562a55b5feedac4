// Package wire is what the built-in model adapters (starhost/models/openai,
// responses, deepseek, anthropic, gemini, ollama) share over net/http: the
// client that classifies every failure, a JSON POST that reads the
// provider's error message, the client of a one-POST protocol (Post: the
// adapter declares its path, header, request and reply reading), the chat
// completions reply (ChatReply, ReadChat), a server-sent events reader, and the checks of
// a request's slots every protocol makes alike. It imports nothing beyond
// the standard library and starhost/models.
package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/models"
	"github.com/crystal-star/crystal-star/starhost/models/modelhttp"
)

// client gives a protocol's call the shared error classification: every
// failure leaves Complete as a *models.Error naming provider and model.
type client struct {
	provider, model string
	call            func(ctx context.Context, req models.Request) (models.Reply, error)
}

// Client wraps call for cfg's provider and model.
func Client(cfg models.ClientConfig, call func(ctx context.Context, req models.Request) (models.Reply, error)) models.Client {
	return &client{provider: cfg.Provider.Name, model: cfg.Model.Name, call: call}
}

// Complete sends one request; it returns when ctx ends.
func (c *client) Complete(ctx context.Context, req models.Request) (models.Reply, error) {
	reply, err := c.call(ctx, req)
	if err != nil {
		return models.Reply{}, models.Classify(ctx, c.provider, c.model, err)
	}
	return reply, nil
}

// HTTP is the client a client of cfg sends with: bounded by cfg.Timeout,
// retrying a 429 as its retry-after says (modelhttp).
func HTTP(cfg models.ClientConfig) *http.Client { return modelhttp.Client(cfg.Timeout) }

// URL joins the provider's endpoint and a path ("/chat/completions").
func URL(cfg models.ClientConfig, path string) string {
	return strings.TrimRight(cfg.Provider.Endpoint, "/") + path
}

// NewRequest is a POST of body as JSON to url with header.
func NewRequest(ctx context.Context, url string, header http.Header, body any) (*http.Request, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// PostJSON sends body as JSON to url with header and decodes a 2xx answer
// into out; an error answer becomes a *models.StatusError carrying the
// message errMsg extracts from its body (the body itself, clipped, when it
// names none).
func PostJSON(ctx context.Context, hc *http.Client, url string, header http.Header, body, out any, errMsg func([]byte) string) error {
	req, err := NewRequest(ctx, url, header, body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	status, _, resp, err := modelhttp.Do(hc, req)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return StatusError(status, resp, errMsg)
	}
	if err := json.Unmarshal(resp, out); err != nil {
		return models.Malformed("not a JSON reply: %v", err)
	}
	return nil
}

// StatusError is the error of an HTTP error answer: its status and the
// message errMsg reads from the body, else the body itself.
func StatusError(status int, body []byte, errMsg func([]byte) string) error {
	msg := errMsg(body)
	if msg == "" {
		msg = strings.TrimSpace(string(body))
	}
	return &models.StatusError{Status: status, Msg: msg}
}

// OpenAIErrorMessage reads the error body of OpenAI and of the APIs shaped
// like it (DeepSeek, Anthropic): {"error": {"message": ...}}.
func OpenAIErrorMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Message
}

// Bearer returns the Authorization header of a bearer key (none without a
// key).
func Bearer(key string) http.Header {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return h
}

// CheckImages refuses images on a client that is not the images client.
func CheckImages(cfg models.ClientConfig, req models.Request) error {
	if len(req.Images) > 0 && !cfg.Images {
		return &models.Error{Code: models.CodeBadRequest, Detail: "images are accepted only by the images client"}
	}
	return nil
}

// BadImage is the error of an image URL the protocol cannot send.
func BadImage(err error) error {
	return &models.Error{Code: models.CodeBadRequest, Detail: err.Error()}
}

// SendsThinking reports whether a thinking token asks for a specific
// effort (not the host's sentinels).
func SendsThinking(t string) bool {
	return t != "" && t != models.ThinkingDefault && t != models.ThinkingOff
}

// NoSpeed refuses a speed for a protocol that has none (CC9: a slot the
// adapter cannot honour is not_supported).
func NoSpeed(protocol string, f models.Facts) error {
	if f.Speed != "" {
		return contrib.NotSupported("the %s adapter has no speed setting (speed %q); unset it with /speed", protocol, f.Speed)
	}
	return nil
}

// NoTierOrSpeed refuses a service tier or speed for a protocol that has
// neither.
func NoTierOrSpeed(protocol string, f models.Facts) error {
	if f.ServiceTier != "" {
		return contrib.NotSupported("the %s adapter has no service tier (tier %q); unset it with /tier", protocol, f.ServiceTier)
	}
	return NoSpeed(protocol, f)
}
