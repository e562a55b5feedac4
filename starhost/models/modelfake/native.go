package modelfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicWire is the Anthropic Messages API, streamed as server-sent
// events when the request says "stream": true.
type anthropicWire struct{}

func (anthropicWire) name() string { return "anthropic" }

func (anthropicWire) parse(_ *http.Request, body []byte) (call, error) {
	var b struct {
		Model     string          `json:"model"`
		MaxTokens int             `json:"max_tokens"`
		System    json.RawMessage `json:"system"`
		Stream    bool            `json:"stream"`
		Tier      string          `json:"service_tier"`
		Speed     string          `json:"speed"`
		Thinking  *struct {
			Type   string `json:"type"`
			Budget int    `json:"budget_tokens"`
		} `json:"thinking"`
		Output struct {
			Effort string `json:"effort"`
		} `json:"output_config"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.Model == "" || b.MaxTokens == 0 || len(b.Messages) == 0 {
		return call{}, fmt.Errorf("need model, max_tokens and messages")
	}
	c := call{model: b.Model, max: b.MaxTokens, msgs: len(b.Messages), stream: b.Stream, tier: joinTier(b.Tier, b.Speed)}
	if len(b.System) > 0 {
		c.msgs++
	}
	if t := b.Thinking; t != nil {
		c.effort = t.Type
		switch {
		case t.Budget > 0:
			c.effort += fmt.Sprintf(":%d", t.Budget)
		case b.Output.Effort != "":
			c.effort += ":" + b.Output.Effort
		}
	}
	c.text, c.images = content(b.Messages[len(b.Messages)-1].Content, "text", "image")
	return c, nil
}

// authProblem wants x-api-key and anthropic-version, as the API does.
func (anthropicWire) authProblem(r *http.Request, key string) string {
	switch {
	case r.Header.Get("Anthropic-Version") == "":
		return "anthropic-version header is required"
	case key != "" && r.Header.Get("X-Api-Key") != key:
		return "invalid x-api-key"
	}
	return ""
}

var anthropicErrorTypes = map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
	404: "not_found_error", 429: "rate_limit_error", 500: "api_error", 503: "overloaded_error"}

func (anthropicWire) fail(w http.ResponseWriter, status int, msg string) {
	kind := anthropicErrorTypes[status]
	if kind == "" {
		kind = "api_error"
	}
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg}, "request_id": "req_fake"})
}

func (anthropicWire) reply(w http.ResponseWriter, c call, text string, refuse bool) {
	stop := "end_turn"
	if refuse {
		stop, text = "refusal", ""
	}
	anthropicAnswer(w, c, []anthropicBlock{{text: text}}, stop, text)
}

// replyTools answers with tool_use blocks (after a text block when the
// reply has text) and stop_reason tool_use.
func (anthropicWire) replyTools(w http.ResponseWriter, c call, r Reply) {
	var blocks []anthropicBlock
	if r.Text != "" {
		blocks = append(blocks, anthropicBlock{text: r.Text})
	}
	for _, t := range r.ToolCalls {
		blocks = append(blocks, anthropicBlock{call: &t})
	}
	anthropicAnswer(w, c, blocks, "tool_use", r.Text)
}

// anthropicBlock is one content block of an answer: text, or a tool_use
// when call is set.
type anthropicBlock struct {
	text string
	call *ToolCall
}

// start is the block as content_block_start opens it (whole=false, text
// and input still empty) or as a complete message holds it (whole=true).
func (b anthropicBlock) start(whole bool) map[string]any {
	if b.call == nil {
		if !whole {
			return map[string]any{"type": "text", "text": ""}
		}
		return map[string]any{"type": "text", "text": b.text}
	}
	var input any = map[string]any{}
	if whole {
		input = json.RawMessage(b.call.arguments())
	}
	return map[string]any{"type": "tool_use", "id": b.call.ID, "name": b.call.Name, "input": input}
}

// streamed is what the block's deltas carry: its text or input JSON.
func (b anthropicBlock) streamed() string {
	if b.call == nil {
		return b.text
	}
	return b.call.arguments()
}

// delta is a piece of streamed, as content_block_delta carries it.
func (b anthropicBlock) delta(piece string) map[string]any {
	if b.call == nil {
		return map[string]any{"type": "text_delta", "text": piece}
	}
	return map[string]any{"type": "input_json_delta", "partial_json": piece}
}

// anthropicAnswer writes a message of content blocks, as one JSON body
// or, when the request streams, as events.
func anthropicAnswer(w http.ResponseWriter, c call, blocks []anthropicBlock, stop, text string) {
	usage := map[string]any{"input_tokens": words(c.text), "output_tokens": words(text)}
	if !c.stream {
		content := make([]any, len(blocks))
		for i, b := range blocks {
			content[i] = b.start(true)
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": c.model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_fake", "type": "message",
		"role": "assistant", "model": c.model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": words(c.text), "output_tokens": 1}}})
	if c.model == "stream-error" { // the API reports overload inside a started stream
		event("error", map[string]any{"type": "error", "error": map[string]any{"type": "overloaded_error", "message": "overloaded"}})
		return
	}
	for i, b := range blocks {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": b.start(false)})
		if i == 0 {
			event("ping", map[string]any{"type": "ping"})
		}
		// The text or input comes in two deltas, so a client must
		// accumulate them.
		all := b.streamed()
		for _, piece := range []string{all[:len(all)/2], all[len(all)/2:]} {
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": b.delta(piece)})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": words(text)}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// geminiWire is the Gemini API's generateContent, and
// streamGenerateContent (server-sent events with ?alt=sse) as Gemini CLI
// calls it.
type geminiWire struct{}

func (geminiWire) name() string { return "gemini" }

type geminiThinking struct {
	Budget *int   `json:"thinkingBudget"`
	Level  string `json:"thinkingLevel"`
}

func (geminiWire) parse(r *http.Request, body []byte) (call, error) {
	var b struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text       *string         `json:"text"`
				InlineData json.RawMessage `json:"inlineData"`
				FileData   json.RawMessage `json:"fileData"`
			} `json:"parts"`
		} `json:"contents"`
		System     json.RawMessage `json:"systemInstruction"`
		Tier       string          `json:"serviceTier"`
		Generation struct {
			MaxOutputTokens int             `json:"maxOutputTokens"`
			Thinking        *geminiThinking `json:"thinkingConfig"`
		} `json:"generationConfig"`
	}
	model := r.URL.Path[strings.LastIndex(r.URL.Path, "/models/")+len("/models/"):]
	model = strings.TrimSuffix(strings.TrimSuffix(model, ":generateContent"), ":streamGenerateContent")
	if err := json.Unmarshal(body, &b); err != nil || len(b.Contents) == 0 {
		return call{}, fmt.Errorf("need contents")
	}
	c := call{model: model, max: b.Generation.MaxOutputTokens, msgs: len(b.Contents), tier: strings.ToLower(b.Tier),
		stream: strings.HasSuffix(r.URL.Path, ":streamGenerateContent")}
	if len(b.System) > 0 {
		c.msgs++
	}
	if t := b.Generation.Thinking; t != nil {
		if t.Budget != nil {
			c.effort = fmt.Sprintf("budget:%d", *t.Budget)
		} else {
			c.effort = "level:" + t.Level
		}
	}
	for _, p := range b.Contents[len(b.Contents)-1].Parts {
		switch {
		case p.Text != nil:
			c.text += *p.Text
		case p.InlineData != nil || p.FileData != nil:
			c.images++
		}
	}
	return c, nil
}

func (geminiWire) authProblem(r *http.Request, key string) string {
	if key != "" && r.Header.Get("X-Goog-Api-Key") != key {
		return "API key not valid. Please pass a valid API key."
	}
	return ""
}

var geminiStatus = map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}

func (geminiWire) fail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg, "status": geminiStatus[status]}})
}

func (geminiWire) reply(w http.ResponseWriter, c call, text string, refuse bool) {
	usage := map[string]any{"promptTokenCount": words(c.text), "candidatesTokenCount": words(text), "totalTokenCount": words(c.text) + words(text)}
	if refuse {
		writeJSON(w, http.StatusOK, map[string]any{"promptFeedback": map[string]any{"blockReason": "SAFETY"}, "usageMetadata": usage})
		return
	}
	geminiAnswer(w, c, []any{map[string]any{"text": text}}, usage)
}

// replyTools answers with functionCall parts.
func (geminiWire) replyTools(w http.ResponseWriter, c call, r Reply) {
	var parts []any
	if r.Text != "" {
		parts = append(parts, map[string]any{"text": r.Text})
	}
	for _, t := range r.ToolCalls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": t.ID, "name": t.Name, "args": json.RawMessage(t.arguments())}})
	}
	usage := map[string]any{"promptTokenCount": words(c.text), "candidatesTokenCount": 1, "totalTokenCount": words(c.text) + 1}
	geminiAnswer(w, c, parts, usage)
}

// geminiAnswer writes one candidate with parts, as one JSON body or, for
// streamGenerateContent, as one server-sent event.
func geminiAnswer(w http.ResponseWriter, c call, parts []any, usage map[string]any) {
	body := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": usage, "modelVersion": c.model, "responseId": "fake",
	}
	if !c.stream {
		writeJSON(w, http.StatusOK, body)
		return
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

// ollamaWire is Ollama's native chat API.
type ollamaWire struct{}

func (ollamaWire) name() string { return "ollama" }

func (ollamaWire) parse(_ *http.Request, body []byte) (call, error) {
	var b struct {
		Model    string          `json:"model"`
		Think    json.RawMessage `json:"think"`
		Stream   *bool           `json:"stream"`
		Options  map[string]any  `json:"options"`
		Messages []struct {
			Role    string   `json:"role"`
			Content string   `json:"content"`
			Images  []string `json:"images"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.Model == "" || len(b.Messages) == 0 {
		return call{}, fmt.Errorf("need model and messages")
	}
	if b.Stream == nil || *b.Stream {
		return call{}, fmt.Errorf("this fake answers only stream=false")
	}
	last := b.Messages[len(b.Messages)-1]
	c := call{model: b.Model, msgs: len(b.Messages), text: last.Content, images: len(last.Images),
		effort: strings.Trim(string(b.Think), `"`)}
	if n, ok := b.Options["num_predict"].(float64); ok {
		c.max = int(n)
	}
	return c, nil
}

func (ollamaWire) authProblem(r *http.Request, key string) string { return bearerProblem(r, key) }

func (ollamaWire) fail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": msg})
}

func (ollamaWire) reply(w http.ResponseWriter, c call, text string, _ bool) {
	writeJSON(w, http.StatusOK, map[string]any{"model": c.model, "created_at": "2026-01-01T00:00:00Z",
		"message": map[string]any{"role": "assistant", "content": text}, "done": true, "done_reason": "stop",
		"prompt_eval_count": words(c.text), "eval_count": words(text)})
}

// joinTier shows a service tier and a speed together ("auto+fast").
func joinTier(tier, speed string) string {
	if speed == "" {
		return tier
	}
	if tier == "" {
		return "+" + speed
	}
	return tier + "+" + speed
}
