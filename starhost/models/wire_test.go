package models_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost/models"
	"github.com/crystal-star/crystal-star/starhost/models/modelfake"
)

// The net/http adapters read the documented reply shapes as strictly as
// the SDKs did (issue 26 point 6). A reply that asks for tool calls keeps
// its text and says why it stopped: chat completions' message.tool_calls
// (finish_reason tool_calls, content beside it), and Anthropic's streamed
// tool_use block, whose input_json_delta events are not text.
func TestH26_6_ToolCallRepliesKeepTheirText(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	for proto, finish := range map[string]string{"openai": "tool_calls", "deepseek": "tool_calls", "anthropic": "tool_use"} {
		srv.ScriptReplies(modelfake.Reply{Text: "Let me look.", ToolCalls: []modelfake.ToolCall{
			{ID: "call_1", Name: "read_file", Arguments: `{"path": "go.mod"}`}}})
		reply, err := client(t, srv, proto, "m", models.Facts{}, false).Complete(context.Background(),
			models.Request{Messages: []models.Message{{Role: "user", Content: "what module is this?"}}})
		if err != nil || reply.Text != "Let me look." || reply.FinishReason != finish {
			t.Errorf("%s: %+v, %v; want the preamble and finish %s", proto, reply, err, finish)
		}
	}
}

// OpenAI's account headers go with both OpenAI protocols, from
// providers.json alone.
func TestH26_6_OpenAIAccountHeaders(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	for _, proto := range []string{"openai", "responses"} {
		ad, _ := models.Registered().Lookup(proto)
		c, err := ad.NewClient(context.Background(), models.ClientConfig{Provider: &models.Provider{Name: "p", Endpoint: srv.Endpoint(proto),
			Organization: "org-1", Project: "proj-1"}, Model: &models.ProviderModel{Name: "m"}, APIKey: fakeKey})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Complete(context.Background(), models.Request{Messages: []models.Message{{Role: "user", Content: "x"}}}); err != nil {
			t.Fatal(err)
		}
		h := srv.Last().Header
		if h.Get("OpenAI-Organization") != "org-1" || h.Get("OpenAI-Project") != "proj-1" || h.Get("Authorization") != "Bearer "+fakeKey {
			t.Errorf("%s headers: %v", proto, h)
		}
	}
}

// anthropicStream serves the events as one Messages API stream.
func anthropicStream(events ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		for _, e := range events {
			fmt.Fprint(w, e)
		}
	})
}

const (
	messageStart = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":7,\"output_tokens\":1}}}\n\n"
	textStart    = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	textDelta    = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n"
	messageDelta = "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":3}}\n\n"
	messageStop  = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
)

// The Anthropic stream is read as the API documents it: comments, pings
// and event types the adapter does not know are skipped (the versioning
// policy may add them); a stream cut before message_stop is a connection
// that closed mid-answer, not a short reply; a data line that is not JSON
// is a bad reply.
func TestH26_6_AnthropicStreamEdges(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	ask := func(prefix string) (models.Reply, error) {
		ad, _ := models.Registered().Lookup("anthropic")
		c, err := ad.NewClient(context.Background(), models.ClientConfig{Provider: &models.Provider{Name: "p", Endpoint: srv.URL + prefix},
			Model: &models.ProviderModel{Name: "m"}, APIKey: fakeKey})
		if err != nil {
			t.Fatal(err)
		}
		return c.Complete(context.Background(), models.Request{Messages: []models.Message{{Role: "user", Content: "x"}}})
	}
	srv.Handle("/whole/", anthropicStream(": a comment\n\n", messageStart, textStart, "event: ping\ndata: {\"type\": \"ping\"}\n\n",
		"event: future_event\ndata: {\"type\":\"future_event\",\"x\":1}\n\n", textDelta,
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\n",
		"data: \"delta\":{\"type\":\"text_delta\",\"text\":\", world\"}}\n\n", messageDelta, messageStop))
	reply, err := ask("/whole")
	if err != nil || reply.Text != "Hello, world" || reply.FinishReason != "end_turn" || reply.InputTokens != 7 || reply.OutputTokens != 3 {
		t.Errorf("whole stream: %+v, %v", reply, err)
	}
	srv.Handle("/cut/", anthropicStream(messageStart, textStart, textDelta))
	_, err = ask("/cut")
	if err == nil || err.Error() != "unreachable: p/m: the provider cannot be reached (the connection closed before the answer was complete)" {
		t.Errorf("cut stream: %v", err)
	}
	srv.Handle("/garbled/", anthropicStream(messageStart, "event: content_block_start\ndata: {not json\n\n"))
	_, err = ask("/garbled")
	var me *models.Error
	if !errors.As(err, &me) || me.Code != models.CodeBadReply {
		t.Errorf("garbled event: %v", err)
	}
}

// jsonReply serves body as every JSON reply.
func jsonReply(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	})
}

// The chat completions protocols read their one shared reply shape each as
// strictly as its API promises: no choices is a bad reply for both; a null
// content is a tool-calling reply's empty text for OpenAI and a bad reply
// for DeepSeek, which always answers with content; a refusal or a
// content_filter finish is refused. Gemini needs its key before any call.
func TestWire_ChatCompletionEdges(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	ask := func(proto, prefix string) (models.Reply, error) {
		ad, _ := models.Registered().Lookup(proto)
		c, err := ad.NewClient(context.Background(), models.ClientConfig{Provider: &models.Provider{Name: "p", Endpoint: srv.URL + prefix},
			Model: &models.ProviderModel{Name: "m"}, APIKey: fakeKey})
		if err != nil {
			t.Fatal(err)
		}
		return c.Complete(context.Background(), models.Request{Messages: []models.Message{{Role: "user", Content: "x"}}})
	}
	srv.Handle("/none/", jsonReply(`{"choices": []}`))
	srv.Handle("/null/", jsonReply(`{"choices": [{"message": {"content": null}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 4, "completion_tokens": 2}}`))
	srv.Handle("/refusal/", jsonReply(`{"choices": [{"message": {"content": null, "refusal": "no"}, "finish_reason": "stop"}]}`))
	srv.Handle("/filter/", jsonReply(`{"choices": [{"message": {"content": "x"}, "finish_reason": "content_filter"}]}`))
	code := func(err error) string {
		var me *models.Error
		if errors.As(err, &me) {
			return me.Code
		}
		return ""
	}
	for _, proto := range []string{"openai", "deepseek"} {
		if _, err := ask(proto, "/none"); code(err) != models.CodeBadReply {
			t.Errorf("%s, no choices: %v", proto, err)
		}
		if _, err := ask(proto, "/filter"); code(err) != models.CodeRefused {
			t.Errorf("%s, content_filter: %v", proto, err)
		}
	}
	if reply, err := ask("openai", "/null"); err != nil || reply.Text != "" || reply.FinishReason != "tool_calls" || reply.InputTokens != 4 || reply.OutputTokens != 2 {
		t.Errorf("openai, null content: %+v, %v", reply, err)
	}
	if _, err := ask("deepseek", "/null"); code(err) != models.CodeBadReply {
		t.Errorf("deepseek, null content: %v", err)
	}
	if _, err := ask("openai", "/refusal"); code(err) != models.CodeRefused || !strings.Contains(err.Error(), "no") {
		t.Errorf("openai, refusal: %v", err)
	}
	ad, _ := models.Registered().Lookup("gemini")
	if _, err := ad.NewClient(context.Background(), models.ClientConfig{Provider: &models.Provider{Name: "p", Endpoint: srv.URL},
		Model: &models.ProviderModel{Name: "m"}}); err == nil || !strings.Contains(err.Error(), "needs an API key") {
		t.Errorf("gemini without a key: %v", err)
	}
}
