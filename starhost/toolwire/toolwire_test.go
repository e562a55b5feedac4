package toolwire_test

import (
	"encoding/json"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/toolwire"
)

func TestGlue_ToolDefinitions(t *testing.T) {
	tools := []starhost.ToolInfo{
		{Name: "find", Description: "find an item", Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`), ReadOnly: true},
		{Name: "bare"},
	}
	cases := []struct {
		name string
		got  any
		want string
	}{
		{"openai", toolwire.OpenAITools(tools), `[{"type":"function","function":{"name":"find","description":"find an item","parameters":{"type":"object","properties":{"id":{"type":"string"}}}}},{"type":"function","function":{"name":"bare","parameters":{"type":"object"}}}]`},
		{"anthropic", toolwire.AnthropicTools(tools), `[{"name":"find","description":"find an item","input_schema":{"type":"object","properties":{"id":{"type":"string"}}}},{"name":"bare","input_schema":{"type":"object"}}]`},
		{"mcp", toolwire.MCPTools(tools), `[{"name":"find","description":"find an item","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}},{"name":"bare","inputSchema":{"type":"object"}}]`},
	}
	for _, c := range cases {
		data, err := json.Marshal(c.got)
		if err != nil || string(data) != c.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", c.name, data, err, c.want)
		}
	}
	if !toolwire.MCPTools(tools)[0].ReadOnly {
		t.Error("MCPTools lost the read_only hint")
	}
}

func TestGlue_ResultText(t *testing.T) {
	for _, c := range []struct {
		res  starhost.ToolResult
		want string
	}{
		{starhost.ToolResult{Text: "hi"}, "hi"},
		{starhost.ToolResult{Data: json.RawMessage(`{"n":1}`)}, `{"n":1}`},
		{starhost.ToolResult{Error: &starhost.ToolError{Code: "not_found", Message: "no item"}}, "not_found: no item"},
	} {
		if got := toolwire.ResultText(c.res); got != c.want {
			t.Errorf("ResultText(%+v) = %q, want %q", c.res, got, c.want)
		}
	}
}

func TestGlue_ParseCommand(t *testing.T) {
	for _, c := range []struct {
		line, name, args string
		ok               bool
	}{
		{"/triage  the queue ", "triage", "the queue", true},
		{"  /tri", "tri", "", true},
		{"hello /triage", "", "", false},
		{"/", "", "", false},
		{"/ x", "", "", false},
		{"/usr/bin/ls", "", "", false},
	} {
		name, args, ok := toolwire.ParseCommand(c.line)
		if name != c.name || args != c.args || ok != c.ok {
			t.Errorf("ParseCommand(%q) = %q %q %v, want %q %q %v", c.line, name, args, ok, c.name, c.args, c.ok)
		}
	}
}

func TestGlue_ModelToolCalls(t *testing.T) {
	var calls []toolwire.OpenAIToolCall
	json.Unmarshal([]byte(`[{"id":"a","type":"function","function":{"name":"find","arguments":"{\"id\":\"x\"}"}},
		{"id":"b","type":"function","function":{"name":"bare","arguments":""}}]`), &calls)
	got := toolwire.ToolCallsFromOpenAI(calls)
	if len(got) != 2 || got[0].Name != "find" || string(got[0].Arguments) != `{"id":"x"}` || string(got[1].Arguments) != "{}" {
		t.Errorf("openai: %+v", got)
	}
	// A call can be written as a literal (a host building its history).
	lit := toolwire.ToolCallsFromOpenAI([]toolwire.OpenAIToolCall{{ID: "c", Type: "function",
		Function: toolwire.OpenAIFunctionCall{Name: "find", Arguments: `{"id":"z"}`}}})
	if len(lit) != 1 || lit[0].ID != "c" || lit[0].Name != "find" || string(lit[0].Arguments) != `{"id":"z"}` {
		t.Errorf("openai literal: %+v", lit)
	}
	var blocks []toolwire.AnthropicToolUse
	json.Unmarshal([]byte(`[{"type":"text"},{"type":"tool_use","id":"t1","name":"find","input":{"id":"y"}},{"type":"tool_use","id":"t2","name":"bare","input":null}]`), &blocks)
	got = toolwire.ToolCallsFromAnthropic(blocks)
	if len(got) != 2 || got[0].ID != "t1" || string(got[0].Arguments) != `{"id":"y"}` || string(got[1].Arguments) != "{}" {
		t.Errorf("anthropic: %+v", got)
	}
	for _, raw := range []string{"", " ", "null"} {
		if got := string(toolwire.Arguments(json.RawMessage(raw))); got != "{}" {
			t.Errorf("Arguments(%q) = %s, want {}", raw, got)
		}
	}
}
