package modelfake

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// openaiWire is OpenAI chat completions.
type openaiWire struct{}

func (openaiWire) name() string { return "openai" }

type chatBody struct {
	Model               string `json:"model"`
	ReasoningEffort     string `json:"reasoning_effort"`
	ServiceTier         string `json:"service_tier"`
	MaxTokens           int    `json:"max_tokens"`
	MaxCompletionTokens int    `json:"max_completion_tokens"`
	Thinking            *struct {
		Type string `json:"type"`
	} `json:"thinking"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// parseChat reads a chat completions body (openai and deepseek).
func parseChat(body []byte) (chatBody, call, error) {
	var b chatBody
	if err := json.Unmarshal(body, &b); err != nil || b.Model == "" || len(b.Messages) == 0 {
		return b, call{}, fmt.Errorf("need model and messages")
	}
	c := call{model: b.Model, tier: b.ServiceTier, max: max(b.MaxTokens, b.MaxCompletionTokens), msgs: len(b.Messages)}
	c.text, c.images = content(b.Messages[len(b.Messages)-1].Content, "text", "image_url")
	return b, c, nil
}

func (openaiWire) parse(_ *http.Request, body []byte) (call, error) {
	b, c, err := parseChat(body)
	c.effort = b.ReasoningEffort
	return c, err
}

func (openaiWire) authProblem(r *http.Request, key string) string { return bearerProblem(r, key) }

// fail writes OpenAI's error body.
func (openaiWire) fail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}})
}

func (openaiWire) reply(w http.ResponseWriter, c call, text string, refuse bool) {
	msg := map[string]any{"role": "assistant", "content": text, "refusal": nil}
	if refuse {
		msg["content"], msg["refusal"] = nil, "I can't help with that."
	}
	writeJSON(w, http.StatusOK, chatReply(c, msg, "stop", text))
}

// replyTools answers with message.tool_calls and finish_reason tool_calls.
func (openaiWire) replyTools(w http.ResponseWriter, c call, r Reply) {
	writeJSON(w, http.StatusOK, chatReply(c, chatToolMessage(r), "tool_calls", r.Text))
}

// chatToolMessage is the assistant message of a reply with tool calls, as
// chat completions sends it (content null when there is no text).
func chatToolMessage(r Reply) map[string]any {
	calls := make([]any, len(r.ToolCalls))
	for i, t := range r.ToolCalls {
		calls[i] = map[string]any{"id": t.ID, "type": "function",
			"function": map[string]any{"name": t.Name, "arguments": t.arguments()}}
	}
	msg := map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	return msg
}

func chatReply(c call, msg map[string]any, finish, text string) map[string]any {
	return map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 1700000000, "model": c.model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage": map[string]any{"prompt_tokens": words(c.text), "completion_tokens": words(text),
			"total_tokens": words(c.text) + words(text)},
	}
}

// deepseekWire is DeepSeek's chat API: chat completions with a thinking
// switch and reasoning_content.
type deepseekWire struct{}

func (deepseekWire) name() string { return "deepseek" }

func (deepseekWire) parse(_ *http.Request, body []byte) (call, error) {
	b, c, err := parseChat(body)
	if b.Thinking != nil {
		c.effort = b.Thinking.Type
	}
	return c, err
}

func (deepseekWire) authProblem(r *http.Request, key string) string { return bearerProblem(r, key) }

func (deepseekWire) fail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": "invalid_request_error"}})
}

func (deepseekWire) reply(w http.ResponseWriter, c call, text string, refuse bool) {
	msg := map[string]any{"role": "assistant", "content": text, "reasoning_content": "thinking it over"}
	finish := "stop"
	if refuse {
		msg["content"], finish = "", "content_filter"
	}
	writeJSON(w, http.StatusOK, chatReply(c, msg, finish, text))
}

func (deepseekWire) replyTools(w http.ResponseWriter, c call, r Reply) {
	msg := chatToolMessage(r)
	msg["reasoning_content"] = "thinking it over"
	writeJSON(w, http.StatusOK, chatReply(c, msg, "tool_calls", r.Text))
}

// responsesWire is the OpenAI Responses API.
type responsesWire struct{}

func (responsesWire) name() string { return "responses" }

func (responsesWire) parse(_ *http.Request, body []byte) (call, error) {
	var b struct {
		Model        string `json:"model"`
		Instructions string `json:"instructions"`
		ServiceTier  string `json:"service_tier"`
		MaxOutput    int    `json:"max_output_tokens"`
		Reasoning    struct {
			Effort string `json:"effort"`
		} `json:"reasoning"`
		Input []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.Model == "" || len(b.Input) == 0 {
		return call{}, fmt.Errorf("need model and input items")
	}
	c := call{model: b.Model, tier: b.ServiceTier, max: b.MaxOutput, effort: b.Reasoning.Effort, msgs: len(b.Input)}
	if b.Instructions != "" {
		c.msgs++
	}
	c.text, c.images = content(b.Input[len(b.Input)-1].Content, "input_text", "input_image")
	return c, nil
}

func (responsesWire) authProblem(r *http.Request, key string) string { return bearerProblem(r, key) }

func (responsesWire) fail(w http.ResponseWriter, status int, msg string) {
	openaiWire{}.fail(w, status, msg)
}

func (responsesWire) reply(w http.ResponseWriter, c call, text string, refuse bool) {
	part := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
	if refuse {
		part = map[string]any{"type": "refusal", "refusal": "I can't help with that."}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "resp_fake", "object": "response", "created_at": 1700000000, "status": "completed", "model": c.model,
		"error": nil, "incomplete_details": nil,
		"output": []any{map[string]any{"type": "message", "id": "msg_fake", "status": "completed", "role": "assistant",
			"content": []any{part}}},
		"usage": map[string]any{"input_tokens": words(c.text), "output_tokens": words(text), "total_tokens": words(c.text) + words(text)},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// content reads a message's content: a string, or a list of typed parts
// whose textType parts hold the text and imageType parts count as images.
func content(raw json.RawMessage, textType, imageType string) (text string, images int) {
	if json.Unmarshal(raw, &text) == nil {
		return text, 0
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	for _, p := range parts {
		switch p.Type {
		case textType:
			text += p.Text
		case imageType:
			images++
		}
	}
	return text, images
}
