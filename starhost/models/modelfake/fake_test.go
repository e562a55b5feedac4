package modelfake_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost/models/modelfake"
)

// post sends body to the server's path and returns the status and body.
func post(t *testing.T, srv *modelfake.Server, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// compact re-encodes a JSON value so it compares as text.
func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var lookup = modelfake.Reply{ToolCalls: []modelfake.ToolCall{{ID: "call-1", Name: "lookup", Arguments: `{"q":"go"}`}}}

// A scripted tool call comes back as chat completions' message.tool_calls
// with finish_reason tool_calls, and the next scripted reply follows as
// text; a reply past the script answers 500.
func TestScriptRepliesToolCallsOnChatCompletions(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	srv.ScriptReplies(lookup, modelfake.Reply{Text: "found it"})
	const req = `{"model": "m", "messages": [{"role": "user", "content": "find go"}], "tools": []}`
	var reply struct {
		Choices []struct {
			Message      map[string]any `json:"message"`
			FinishReason string         `json:"finish_reason"`
		} `json:"choices"`
	}
	status, body := post(t, srv, "/v1/chat/completions", req)
	if err := json.Unmarshal([]byte(body), &reply); err != nil || status != 200 || len(reply.Choices) != 1 {
		t.Fatalf("%d %s", status, body)
	}
	got, want := compact(t, reply.Choices[0].Message), `{"content":null,"role":"assistant","tool_calls":[{"function":{"arguments":"{\"q\":\"go\"}","name":"lookup"},"id":"call-1","type":"function"}]}`
	if got != want || reply.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("tool call reply %s (%s)\nwant %s", got, reply.Choices[0].FinishReason, want)
	}
	status, body = post(t, srv, "/v1/chat/completions", req)
	reply.Choices = nil // a fresh message map, without the tool calls of the first
	if err := json.Unmarshal([]byte(body), &reply); err != nil || status != 200 ||
		reply.Choices[0].Message["content"] != "found it" || reply.Choices[0].Message["tool_calls"] != nil || reply.Choices[0].FinishReason != "stop" {
		t.Errorf("next reply: %d %s", status, body)
	}
	if status, body = post(t, srv, "/v1/chat/completions", req); status != 500 || !strings.Contains(body, "no scripted reply left (2 given)") {
		t.Errorf("past the script: %d %s", status, body)
	}
}

// Anthropic speaks a scripted tool call as a tool_use block with
// stop_reason tool_use, whole and streamed (the input JSON in
// input_json_delta pieces); a protocol without tool calls answers 500.
func TestScriptRepliesToolCallsOnAnthropic(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	srv.ScriptReplies(modelfake.Reply{Text: "let me look", ToolCalls: lookup.ToolCalls}, lookup, lookup, lookup)
	const req = `{"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "find go"}]%s}`
	status, body := post(t, srv, "/anthropic/v1/messages", strings.Replace(req, "%s", "", 1))
	var msg struct {
		Content    []any  `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil || status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	got, want := compact(t, msg.Content), `[{"text":"let me look","type":"text"},{"id":"call-1","input":{"q":"go"},"name":"lookup","type":"tool_use"}]`
	if got != want || msg.StopReason != "tool_use" {
		t.Errorf("content %s (%s)\nwant    %s", got, msg.StopReason, want)
	}

	status, body = post(t, srv, "/anthropic/v1/messages", strings.Replace(req, "%s", `, "stream": true`, 1))
	var start, input, stop string
	for _, line := range strings.Split(body, "\n") {
		var ev struct {
			Type         string         `json:"type"`
			ContentBlock map[string]any `json:"content_block"`
			Delta        struct {
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok && json.Unmarshal([]byte(data), &ev) == nil {
			switch ev.Type {
			case "content_block_start":
				start = compact(t, ev.ContentBlock)
			case "content_block_delta":
				input += ev.Delta.PartialJSON
			case "message_delta":
				stop = ev.Delta.StopReason
			}
		}
	}
	if status != 200 || start != `{"id":"call-1","input":{},"name":"lookup","type":"tool_use"}` || input != `{"q":"go"}` || stop != "tool_use" {
		t.Errorf("stream: %d start %s input %s stop %s\n%s", status, start, input, stop, body)
	}

	status, body = post(t, srv, "/ollama/api/chat", `{"model": "m", "stream": false, "messages": [{"role": "user", "content": "x"}]}`)
	if status != 500 || !strings.Contains(body, "scripted tool calls are not spoken on ollama") {
		t.Errorf("ollama: %d %s", status, body)
	}
}

// Gemini speaks a scripted tool call as a functionCall part, in one JSON
// body or, on streamGenerateContent (what Gemini CLI calls), in one
// server-sent event.
func TestH27_7_GeminiFunctionCalls(t *testing.T) {
	srv := modelfake.Start()
	defer srv.Close()
	srv.ScriptReplies(lookup, lookup)
	const want = `"parts":[{"functionCall":{"args":{"q":"go"},"id":"call-1","name":"lookup"}}]`
	status, body := post(t, srv, "/gemini/v1beta/models/m:generateContent", `{"contents": [{"role": "user", "parts": [{"text": "x"}]}]}`)
	if status != 200 || !strings.Contains(body, want) {
		t.Errorf("gemini: %d %s", status, body)
	}
	status, body = post(t, srv, "/gemini/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents": [{"role": "user", "parts": [{"text": "x"}]}]}`)
	if status != 200 || !strings.HasPrefix(body, "data: {") || !strings.Contains(body, want) {
		t.Errorf("gemini stream: %d %s", status, body)
	}
}
