package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/models"
	_ "github.com/crystal-star/crystal-star/starhost/models/builtin" // the six adapters under test
	"github.com/crystal-star/crystal-star/starhost/models/modelfake"
)

const fakeKey = "sk-fake-0123456789"

var protocols = []string{"openai", "responses", "deepseek", "anthropic", "gemini", "ollama"}

func client(t testing.TB, srv *modelfake.Server, protocol, model string, f models.Facts, images bool) models.Client {
	t.Helper()
	ad, ok := models.Registered().Lookup(protocol)
	if !ok {
		t.Fatalf("no adapter for %s", protocol)
	}
	p := &models.Provider{Name: "p", Protocol: protocol, Endpoint: srv.Endpoint(protocol)}
	m := &models.ProviderModel{Name: model}
	f.Model = model
	c, err := ad.NewClient(context.Background(), models.ClientConfig{Provider: p, Model: m, Facts: f, APIKey: fakeKey,
		Images: images})
	if err != nil {
		t.Fatalf("%s: %v", protocol, err)
	}
	return c
}

// jsonAt reads a value of a JSON body by a dotted path ("a.b.0.c").
func jsonAt(body []byte, path string) any {
	var v any
	_ = json.Unmarshal(body, &v)
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// Each adapter speaks its protocol's real request shape — path, auth
// headers, system text, sampling, thinking, tier, images — and reads the
// protocol's reply (anthropic's streamed in two deltas).
func TestAdapters_RequestAndReplyShapes(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	temp := 0.5
	img := "data:image/png;base64,iVBORw0KGgo="
	for _, tc := range []struct {
		protocol, thinking, tier, speed string
		images                          bool
		path, reply                     string
		header                          map[string]string
		fields                          map[string]any
	}{
		{"openai", "high", "flex", "", true, "/v1/chat/completions",
			"echo m effort=high tier=flex max=64 images=1 msgs=2: hi",
			map[string]string{"Authorization": "Bearer " + fakeKey},
			map[string]any{"model": "m", "messages.0.role": "system", "messages.0.content": "be brief", "temperature": 0.5,
				"max_completion_tokens": 64.0, "reasoning_effort": "high", "service_tier": "flex", "messages.1.content.1.image_url.url": img}},
		{"responses", "low", "priority", "", true, "/v1/responses",
			"echo m effort=low tier=priority max=64 images=1 msgs=2: hi",
			map[string]string{"Authorization": "Bearer " + fakeKey},
			map[string]any{"model": "m", "instructions": "be brief", "input.0.role": "user", "temperature": 0.5,
				"max_output_tokens": 64.0, "reasoning.effort": "low", "service_tier": "priority", "input.0.content.1.image_url": img}},
		{"deepseek", "high", "", "", false, "/deepseek/chat/completions",
			"echo m effort=enabled tier=- max=64 images=0 msgs=2: hi",
			map[string]string{"Authorization": "Bearer " + fakeKey},
			map[string]any{"model": "m", "messages.0.role": "system", "temperature": 0.5, "max_tokens": 64.0,
				"thinking.type": "enabled", "stream": false}},
		{"anthropic", "2048", "auto", "fast", true, "/anthropic/v1/messages",
			"echo m effort=enabled:2048 tier=auto+fast max=2112 images=1 msgs=2: hi",
			map[string]string{"X-Api-Key": fakeKey, "Authorization": ""},
			map[string]any{"model": "m", "system.0.text": "be brief", "temperature": 0.5, "max_tokens": 2112.0, "stream": true,
				"thinking.type": "enabled", "thinking.budget_tokens": 2048.0, "service_tier": "auto", "speed": "fast",
				"messages.0.content.1.source.type": "base64", "messages.0.content.1.source.media_type": "image/png"}},
		{"gemini", "high", "flex", "", true, "/gemini/v1beta/models/m:generateContent",
			"echo m effort=level:HIGH tier=flex max=64 images=1 msgs=2: hi",
			map[string]string{"X-Goog-Api-Key": fakeKey, "Authorization": ""},
			map[string]any{"systemInstruction.parts.0.text": "be brief", "contents.0.role": "user", "generationConfig.temperature": 0.5,
				"generationConfig.maxOutputTokens": 64.0, "generationConfig.thinkingConfig.thinkingLevel": "HIGH",
				"contents.0.parts.1.inlineData.mimeType": "image/png"}},
		{"ollama", "off", "", "", true, "/ollama/api/chat",
			"echo m effort=false tier=- max=64 images=1 msgs=2: hi",
			map[string]string{"Authorization": "Bearer " + fakeKey},
			map[string]any{"model": "m", "messages.0.role": "system", "messages.1.images.0": "iVBORw0KGgo=", "options.temperature": 0.5,
				"options.num_predict": 64.0, "think": false, "stream": false}},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			c := client(t, srv, tc.protocol, "m", models.Facts{Temperature: &temp, ServiceTier: tc.tier, Speed: tc.speed}, tc.images)
			req := models.Request{Messages: []models.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}},
				MaxTokens: 64, Thinking: tc.thinking}
			if tc.images {
				req.Images = []string{img}
			}
			reply, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if reply.Text != tc.reply || reply.InputTokens != 1 || reply.OutputTokens != len(strings.Fields(tc.reply)) {
				t.Errorf("reply = %+v\nwant text %q", reply, tc.reply)
			}
			got := srv.Last()
			if got.Protocol != tc.protocol || got.Method != "POST" || got.Path != tc.path {
				t.Errorf("request %s %s %s, want POST %s", got.Protocol, got.Method, got.Path, tc.path)
			}
			for h, want := range tc.header {
				if v := got.Header.Get(h); v != want {
					t.Errorf("header %s = %q, want %q", h, v, want)
				}
			}
			if tc.protocol == "anthropic" && got.Header.Get("Anthropic-Version") == "" {
				t.Error("no anthropic-version header")
			}
			for path, want := range tc.fields {
				if v := jsonAt(got.Body, path); fmt.Sprint(v) != fmt.Sprint(want) {
					t.Errorf("body %s = %v, want %v\nbody: %s", path, v, want, got.Body)
				}
			}
		})
	}
}

// CC9: an adapter that cannot honour a service tier or speed fails with
// not_supported when the client is built.
func TestCC9_AdaptersRefuseSlotsTheyLack(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	for _, tc := range []struct{ protocol, tier, speed string }{
		{"openai", "", "fast"}, {"responses", "", "fast"}, {"gemini", "", "fast"},
		{"deepseek", "flex", ""}, {"ollama", "flex", ""}, {"ollama", "", "fast"},
	} {
		ad, _ := models.Registered().Lookup(tc.protocol)
		_, err := ad.NewClient(context.Background(), models.ClientConfig{Provider: &models.Provider{Name: "p", Endpoint: srv.URL},
			Model: &models.ProviderModel{Name: "m"}, Facts: models.Facts{ServiceTier: tc.tier, Speed: tc.speed}, APIKey: fakeKey})
		if !errors.Is(err, contrib.ErrNotSupported) {
			t.Errorf("%s tier=%q speed=%q: %v", tc.protocol, tc.tier, tc.speed, err)
		}
	}
}

// Every failure maps to the same stable code and the same one-line message
// naming provider and model, whatever the protocol.
func TestAdapters_ErrorsAreIdenticalAcrossProtocols(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	for _, tc := range []struct{ model, code, text string }{
		{"fail", models.CodeUnauthorized, "unauthorized: p/fail: the provider rejected the API key (HTTP 401: invalid api key)"},
		{"forbidden", models.CodeUnauthorized, "unauthorized: p/forbidden: the provider rejected the API key (HTTP 403: this key may not use the model)"},
		{"missing", models.CodeModelNotFound, "model_not_found: p/missing: the provider does not serve this model (HTTP 404: model missing does not exist)"},
		{"busy", models.CodeRateLimited, "rate_limited: p/busy: the provider is rate limiting; retried within the bound, try again later (HTTP 429: slow down)"},
		{"down", models.CodeProviderError, "provider_error: p/down: the provider failed (HTTP 503: overloaded)"},
		{"garbled", models.CodeBadReply, ""},
		{"stream-error", models.CodeProviderError, ""},
		{"refuse", models.CodeRefused, ""},
	} {
		for _, proto := range protocols {
			if tc.model == "refuse" && proto == "ollama" {
				continue // Ollama has no refusal
			}
			before := len(srv.Requests())
			_, err := client(t, srv, proto, tc.model, models.Facts{}, false).Complete(context.Background(),
				models.Request{Messages: []models.Message{{Role: "user", Content: "x"}}})
			var me *models.Error
			if !errors.As(err, &me) || me.Code != tc.code || me.Provider != "p" || me.Model != tc.model {
				t.Errorf("%s %s: %v", proto, tc.model, err)
				continue
			}
			if tc.text != "" && err.Error() != tc.text {
				t.Errorf("%s %s:\n got %s\nwant %s", proto, tc.model, err, tc.text)
			}
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), srv.URL) {
				t.Errorf("%s %s: not one line without the endpoint: %q", proto, tc.model, err)
			}
			if tc.model == "busy" && len(srv.Requests())-before != models.MaxRetries+1 {
				t.Errorf("%s busy: %d requests, want %d (bounded retry)", proto, len(srv.Requests())-before, models.MaxRetries+1)
			}
		}
	}
}

// An error event inside a started stream is the provider's error, with
// the status Anthropic gives its type.
func TestAdapters_ErrorInsideAStream(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	_, err := client(t, srv, "anthropic", "stream-error", models.Facts{}, false).Complete(context.Background(),
		models.Request{Messages: []models.Message{{Role: "user", Content: "x"}}})
	if err == nil || err.Error() != "provider_error: p/stream-error: the provider failed (HTTP 529: overloaded)" {
		t.Errorf("err = %v", err)
	}
}

// A 429 with retry-after is retried, and the retry's answer is the reply.
func TestAdapters_RetryAfterIsHonoured(t *testing.T) {
	for _, proto := range protocols {
		srv := modelfake.Start()
		reply, err := client(t, srv, proto, "busy-once", models.Facts{}, false).Complete(context.Background(),
			models.Request{Messages: []models.Message{{Role: "user", Content: "again"}}})
		if err != nil || !strings.HasSuffix(reply.Text, ": again") || len(srv.Requests()) != 2 {
			t.Errorf("%s: %+v, %v after %d requests", proto, reply, err, len(srv.Requests()))
		}
		srv.Close()
	}
}

// A call honours its context: cancellation is cancelled, a deadline is
// timeout, on every protocol.
func TestAdapters_CallHonoursContext(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	for _, proto := range protocols {
		c := client(t, srv, proto, "slow", models.Facts{}, false)
		req := models.Request{Messages: []models.Message{{Role: "user", Content: "x"}}}
		ctx, cancel := context.WithCancel(context.Background())
		srv.OnRequest(func(modelfake.Request) { cancel() })
		_, err := c.Complete(ctx, req)
		var me *models.Error
		if !errors.As(err, &me) || me.Code != models.CodeCancelled || !errors.Is(err, context.Canceled) {
			t.Errorf("%s cancelled: %v", proto, err)
		}
		ctx, cancel = context.WithCancel(context.Background())
		tctx, stop := context.WithDeadline(ctx, deadlineNow())
		srv.OnRequest(nil)
		_, err = c.Complete(tctx, req)
		stop()
		cancel()
		if !errors.As(err, &me) || me.Code != models.CodeTimeout {
			t.Errorf("%s deadline: %v", proto, err)
		}
	}
}

// The model timeout bounds a call on its own: a stalled provider is a
// timeout, not a hang.
func TestAdapters_ModelTimeoutIsTimeout(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	for _, proto := range protocols {
		ad, _ := models.Registered().Lookup(proto)
		c, err := ad.NewClient(context.Background(), models.ClientConfig{Provider: &models.Provider{Name: "p", Endpoint: srv.Endpoint(proto)},
			Model: &models.ProviderModel{Name: "slow"}, Facts: models.Facts{Model: "slow"}, APIKey: fakeKey, Timeout: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), models.Request{Messages: []models.Message{{Role: "user", Content: "x"}}})
		var me *models.Error
		if !errors.As(err, &me) || me.Code != models.CodeTimeout {
			t.Errorf("%s: %v", proto, err)
		}
	}
}

// A provider that cannot be reached is unreachable, and the message names
// neither its host nor its address (CC22: plugins never see endpoints).
func TestCC22_UnreachableHidesTheEndpoint(t *testing.T) {
	srv := modelfake.Start()
	url := srv.URL
	srv.Close() // nothing listens there any more
	for _, proto := range protocols {
		ad, _ := models.Registered().Lookup(proto)
		c, err := ad.NewClient(context.Background(), models.ClientConfig{Provider: &models.Provider{Name: "p", Endpoint: url},
			Model: &models.ProviderModel{Name: "m"}, Facts: models.Facts{Model: "m"}, APIKey: fakeKey})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(context.Background(), models.Request{Messages: []models.Message{{Role: "user", Content: "x"}}})
		if err == nil || err.Error() != "unreachable: p/m: the provider cannot be reached (connection refused)" {
			t.Errorf("%s: %v", proto, err)
		}
	}
}

// The images client alone takes images; Split keeps the system text apart.
func TestAdapters_ImagesOnlyOnTheImagesClient(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	for _, proto := range protocols {
		_, err := client(t, srv, proto, "m", models.Facts{}, false).Complete(context.Background(),
			models.Request{Messages: []models.Message{{Role: "user", Content: "x"}}, Images: []string{"data:image/png;base64,AA=="}})
		var me *models.Error
		if !errors.As(err, &me) || me.Code != models.CodeBadRequest {
			t.Errorf("%s: %v", proto, err)
		}
	}
	sys, conv := models.Split(models.Request{Messages: []models.Message{{Role: "system", Content: "a"}, {Role: "user", Content: "u"}, {Role: "system", Content: "b"}}})
	if sys != "a\n\nb" || len(conv) != 1 {
		t.Errorf("Split = %q, %v", sys, conv)
	}
}

// deadlineNow is a deadline already past when the call starts, so a
// timeout is observed without waiting.
func deadlineNow() time.Time { return time.Now().Add(-time.Second) }
