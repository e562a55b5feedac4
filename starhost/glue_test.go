package starhost_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
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
		{"openai", starhost.OpenAITools(tools), `[{"type":"function","function":{"name":"find","description":"find an item","parameters":{"type":"object","properties":{"id":{"type":"string"}}}}},{"type":"function","function":{"name":"bare","parameters":{"type":"object"}}}]`},
		{"anthropic", starhost.AnthropicTools(tools), `[{"name":"find","description":"find an item","input_schema":{"type":"object","properties":{"id":{"type":"string"}}}},{"name":"bare","input_schema":{"type":"object"}}]`},
		{"mcp", starhost.MCPTools(tools), `[{"name":"find","description":"find an item","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}},{"name":"bare","inputSchema":{"type":"object"}}]`},
	}
	for _, c := range cases {
		data, err := json.Marshal(c.got)
		if err != nil || string(data) != c.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", c.name, data, err, c.want)
		}
	}
	if !starhost.MCPTools(tools)[0].ReadOnly {
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
		if got := starhost.ResultText(c.res); got != c.want {
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
		name, args, ok := starhost.ParseCommand(c.line)
		if name != c.name || args != c.args || ok != c.ok {
			t.Errorf("ParseCommand(%q) = %q %q %v, want %q %q %v", c.line, name, args, ok, c.name, c.args, c.ok)
		}
	}
}

func TestGlue_ModelToolCalls(t *testing.T) {
	var calls []starhost.OpenAIToolCall
	json.Unmarshal([]byte(`[{"id":"a","type":"function","function":{"name":"find","arguments":"{\"id\":\"x\"}"}},
		{"id":"b","type":"function","function":{"name":"bare","arguments":""}}]`), &calls)
	got := starhost.ToolCallsFromOpenAI(calls)
	if len(got) != 2 || got[0].Name != "find" || string(got[0].Arguments) != `{"id":"x"}` || string(got[1].Arguments) != "{}" {
		t.Errorf("openai: %+v", got)
	}
	// A call can be written as a literal (a host building its history).
	lit := starhost.ToolCallsFromOpenAI([]starhost.OpenAIToolCall{{ID: "c", Type: "function",
		Function: starhost.OpenAIFunctionCall{Name: "find", Arguments: `{"id":"z"}`}}})
	if len(lit) != 1 || lit[0].ID != "c" || lit[0].Name != "find" || string(lit[0].Arguments) != `{"id":"z"}` {
		t.Errorf("openai literal: %+v", lit)
	}
	var blocks []starhost.AnthropicToolUse
	json.Unmarshal([]byte(`[{"type":"text"},{"type":"tool_use","id":"t1","name":"find","input":{"id":"y"}},{"type":"tool_use","id":"t2","name":"bare","input":null}]`), &blocks)
	got = starhost.ToolCallsFromAnthropic(blocks)
	if len(got) != 2 || got[0].ID != "t1" || string(got[0].Arguments) != `{"id":"y"}` || string(got[1].Arguments) != "{}" {
		t.Errorf("anthropic: %+v", got)
	}
	for _, raw := range []string{"", " ", "null"} {
		if got := string(starhost.Arguments(json.RawMessage(raw))); got != "{}" {
			t.Errorf("Arguments(%q) = %s, want {}", raw, got)
		}
	}
}

// TestDC4_DispatchNullArgumentsAreTheEmptyObject: one rule for missing
// arguments through Dispatch — the approver, the host's invoker and the
// result's Call all see {}, as ToolSnapshot.Invoke does.
func TestDC4_DispatchNullArgumentsAreTheEmptyObject(t *testing.T) {
	var approved, invoked []string
	h, _, _ := pointsHost(t, starhost.Options{BuiltinTools: []string{"read"}, Points: starhost.PointDefaults{
		Approve: func(_ context.Context, req starhost.ApprovalRequest) starhost.Approval {
			approved = append(approved, string(req.Call.Arguments))
			return starhost.Approval{Approved: true}
		}}}, map[string]string{"t": `contribute(tools = [tool(name = "echo", catalogs = "work", run = lambda ctx, args: str(args))])`})
	invoke := func(ctx context.Context, call starhost.ToolCall) starhost.ToolResult {
		invoked = append(invoked, string(call.Arguments))
		if call.Name == "echo" {
			return h.Session().Thread("t").Tools(ctx, starhost.Work).Invoke(ctx, call.Name, call.Arguments)
		}
		return starhost.ToolResult{Text: "read"}
	}
	for _, raw := range []string{"", " ", "null"} {
		for _, name := range []string{"read", "echo"} {
			res := h.Session().Thread("t").Dispatch(bg, starhost.ToolCall{ID: "1", Name: name, Arguments: json.RawMessage(raw)}, invoke)
			if !res.Approved || !res.Result.OK() || string(res.Call.Arguments) != "{}" {
				t.Errorf("%s(%q): %+v", name, raw, res)
			}
		}
		if res := h.Session().Thread("t").Tools(bg, starhost.Work).Invoke(bg, "echo", json.RawMessage(raw)); res.Text != "{}" {
			t.Errorf("Invoke(echo, %q) = %+v, want {}", raw, res)
		}
	}
	for _, list := range [][]string{approved, invoked} {
		if len(list) != 6 || strings.Count(strings.Join(list, ""), "{}") != 6 {
			t.Errorf("the approver and the invoker saw %q, want {} each time", list)
		}
	}
}
