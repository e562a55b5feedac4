// Package toolwire is the glue every agent host writes between a model API
// and the plugin host, written once: a catalog's tools in each protocol's
// shape (OpenAI, Anthropic, MCP), a model's tool calls as
// starhost.ToolCalls, a dispatch result as the message that answers its
// call, the text a model sees for a result, and the /name args line of a
// command. It speaks starhost's public types only and runs no plugin code:
// the host (package starhost) owns the calls, this package their wire
// shapes.
package toolwire

import (
	"encoding/json"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
)

// Arguments applies the one rule for missing tool-call arguments, the rule
// starhost.ToolSnapshot.Invoke and Thread.Dispatch apply themselves (so
// the MCP server too) and the helpers below apply to a model's calls:
// empty, blank or JSON null arguments mean the empty object {}; anything
// else is returned as it is (and validated by the call).
func Arguments(raw json.RawMessage) json.RawMessage { return contrib.Arguments(raw) }

// ResultText is the text a model sees for a tool result: the text of a
// text result, the JSON of a structured one, and "CODE: message" for an
// error, so the stable code reaches the model (DC6).
func ResultText(res starhost.ToolResult) string {
	switch {
	case res.Error != nil:
		return res.Error.Error()
	case res.Data != nil:
		return string(res.Data)
	}
	return res.Text
}

// ParseCommand splits a turn's input of the form "/name args" into the
// command name (without the slash) and its argument text (trimmed). ok is
// false when line does not start with "/" followed by a name, so the host
// sends it to the model as it is. Pass name and args to Session.Expand.
func ParseCommand(line string) (name, args string, ok bool) {
	line = strings.TrimSpace(line)
	rest, isCommand := strings.CutPrefix(line, "/")
	if !isCommand {
		return "", "", false
	}
	name, args, _ = strings.Cut(rest, " ")
	if name == "" || strings.ContainsAny(name, "/\t\n") {
		return "", "", false
	}
	return name, strings.TrimSpace(args), true
}

// toolParameters is a tool's JSON Schema, {"type":"object"} when it has none.
func toolParameters(t starhost.ToolInfo) json.RawMessage {
	if p := json.RawMessage(strings.TrimSpace(string(t.Parameters))); len(p) > 0 && string(p) != "null" {
		return p
	}
	return json.RawMessage(`{"type":"object"}`)
}

// OpenAITool is one tool definition in the shape of the OpenAI Chat
// Completions "tools" array.
type OpenAITool struct {
	// Type is always "function".
	Type string `json:"type"`
	// Function is the tool's name, description and parameters.
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction is the function part of an OpenAITool.
type OpenAIFunction struct {
	// Name is the tool's model-facing name (starhost.ToolInfo.Name).
	Name string `json:"name"`
	// Description is what the model reads about the tool.
	Description string `json:"description,omitempty"`
	// Parameters is the tool's JSON Schema, {"type":"object"} when it has
	// none.
	Parameters json.RawMessage `json:"parameters"`
}

// OpenAITools returns the tools of a catalog (starhost.ToolSnapshot.List) as OpenAI
// tool definitions, in catalog order.
func OpenAITools(tools []starhost.ToolInfo) []OpenAITool {
	return sandbox.ConvertAll(tools, func(t starhost.ToolInfo) OpenAITool {
		return OpenAITool{Type: "function", Function: OpenAIFunction{Name: t.Name, Description: t.Description, Parameters: toolParameters(t)}}
	})
}

// AnthropicTool is one tool definition in the shape of the Anthropic
// Messages API "tools" array.
type AnthropicTool struct {
	// Name is the tool's model-facing name (starhost.ToolInfo.Name).
	Name string `json:"name"`
	// Description is what the model reads about the tool.
	Description string `json:"description,omitempty"`
	// InputSchema is the tool's JSON Schema, {"type":"object"} when it has
	// none.
	InputSchema json.RawMessage `json:"input_schema"`
}

// AnthropicTools returns the tools of a catalog as Anthropic tool
// definitions, in catalog order.
func AnthropicTools(tools []starhost.ToolInfo) []AnthropicTool {
	return sandbox.ConvertAll(tools, func(t starhost.ToolInfo) AnthropicTool {
		return AnthropicTool{Name: t.Name, Description: t.Description, InputSchema: toolParameters(t)}
	})
}

// MCPTool is one tool definition in the shape of an MCP tools/list entry.
type MCPTool struct {
	// Name is the tool's model-facing name (starhost.ToolInfo.Name).
	Name string `json:"name"`
	// Description is what the model reads about the tool.
	Description string `json:"description,omitempty"`
	// InputSchema is the tool's JSON Schema, {"type":"object"} when it has
	// none.
	InputSchema json.RawMessage `json:"inputSchema"`
	// ReadOnly is the read_only policy hint (annotations.readOnlyHint).
	ReadOnly bool `json:"-"`
	// OutputSchema is the tool's output_schema (outputSchema), or nil.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Remote is the remote = True mark (DotCraft's RpcEligibleAnnotation),
	// advertised as _meta["crystal-star/rpc-eligible"]: true
	// (RemoteMetaKey).
	Remote bool `json:"-"`
}

// RemoteMetaKey is the _meta key of an MCP tool definition that marks the
// tool rpc-eligible (remote = True) with the JSON value true: DotCraft's
// RpcEligibleAnnotation. MCP's annotations have a fixed set of hints, so
// the mark travels in _meta, where MCP puts extensions.
const RemoteMetaKey = "crystal-star/rpc-eligible"

// MCPTools returns the tools of a catalog as MCP tool definitions, in
// catalog order.
func MCPTools(tools []starhost.ToolInfo) []MCPTool {
	return sandbox.ConvertAll(tools, func(t starhost.ToolInfo) MCPTool {
		return MCPTool{Name: t.Name, Description: t.Description, InputSchema: toolParameters(t), ReadOnly: t.ReadOnly,
			OutputSchema: t.OutputSchema, Remote: t.Remote}
	})
}

// OpenAIToolCall is one entry of the "tool_calls" of an OpenAI assistant
// message; Arguments is the JSON text the model wrote.
type OpenAIToolCall struct {
	// ID is the call's id, to answer with in the tool message.
	ID string `json:"id"`
	// Type is "function".
	Type string `json:"type"`
	// Function is the called tool's name and the arguments as the model
	// wrote them (JSON text).
	Function OpenAIFunctionCall `json:"function"`
}

// OpenAIFunctionCall is the function part of an OpenAIToolCall.
type OpenAIFunctionCall struct {
	// Name is the called tool's model-facing name.
	Name string `json:"name"`
	// Arguments is the JSON text the model wrote (a string, not an object,
	// in the OpenAI protocol).
	Arguments string `json:"arguments"`
}

// AnthropicToolUse is one "tool_use" content block of an Anthropic
// assistant message.
type AnthropicToolUse struct {
	// Type is "tool_use"; ToolCallsFromAnthropic skips other blocks.
	Type string `json:"type"`
	// ID is the call's id, to answer with in the tool_result block.
	ID string `json:"id"`
	// Name is the called tool's name.
	Name string `json:"name"`
	// Input is the arguments as JSON.
	Input json.RawMessage `json:"input"`
}

// ToolCallsFromOpenAI maps the tool calls of an OpenAI assistant message to
// ToolCalls for Thread.Dispatch, applying the Arguments rule.
func ToolCallsFromOpenAI(calls []OpenAIToolCall) []starhost.ToolCall {
	return sandbox.ConvertAll(calls, func(c OpenAIToolCall) starhost.ToolCall {
		return starhost.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: Arguments(json.RawMessage(c.Function.Arguments))}
	})
}

// ToolCallsFromAnthropic maps the tool_use blocks of an Anthropic assistant
// message to ToolCalls for Thread.Dispatch; blocks of other types are skipped.
func ToolCallsFromAnthropic(blocks []AnthropicToolUse) []starhost.ToolCall {
	var out []starhost.ToolCall
	for _, b := range blocks {
		if b.Type != "" && b.Type != "tool_use" {
			continue
		}
		out = append(out, starhost.ToolCall{ID: b.ID, Name: b.Name, Arguments: Arguments(b.Input)})
	}
	return out
}

// OpenAIToolMessage is the "tool" message of the OpenAI Chat Completions
// API that answers one tool call.
type OpenAIToolMessage struct {
	Role       string `json:"role"` // "tool"
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
}

// ToolMessageForOpenAI is a dispatch result as the "tool" message that
// answers its call: the call's id and the text a model sees (ResultText,
// "CODE: message" for an error).
func ToolMessageForOpenAI(res starhost.DispatchResult) OpenAIToolMessage {
	return OpenAIToolMessage{Role: "tool", ToolCallID: res.Call.ID, Content: ResultText(res.Result)}
}

// AnthropicToolResult is the "tool_result" content block of an Anthropic
// user message that answers one tool_use block.
type AnthropicToolResult struct {
	Type      string `json:"type"` // "tool_result"
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

// ToolResultForAnthropic is a dispatch result as the tool_result block
// that answers its tool_use block: the text a model sees (ResultText) and
// is_error for a failed call.
func ToolResultForAnthropic(res starhost.DispatchResult) AnthropicToolResult {
	return AnthropicToolResult{Type: "tool_result", ToolUseID: res.Call.ID, Content: ResultText(res.Result), IsError: !res.Result.OK()}
}
