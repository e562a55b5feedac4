package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/toolwire"
)

// toolsMiddleware answers tools/list in catalog order (CC6; the SDK's own
// registry lists by name) and tools/call through a fresh snapshot, so a
// call right after a save reaches the new generation even before the
// mirror caught up. Everything else goes to the SDK.
func (s *Server) toolsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			// The cache hints are the SDK's own defaults (its listTools):
			// cacheFieldsMiddleware drops them before 2026-07-28.
			return &mcp.ListToolsResult{Tools: s.tools(ctx), Cacheable: mcp.Cacheable{CacheScope: "public"}}, nil
		case "tools/call":
			if r, ok := req.(*mcp.CallToolRequest); ok {
				if d := time.Duration(s.pollAfter.Load()); d > 0 && r.Extra != nil && r.Extra.CloseSSEStream != nil {
					t := time.AfterFunc(d, func() { r.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: PollRetry}) })
					defer t.Stop()
				}
				return s.call(ctx, r)
			}
		}
		return next(ctx, method, req)
	}
}

// tools is the catalog now, in catalog order: the tools of thread "" of
// the server's own session (Thread.Tools), the list a call goes through.
func (s *Server) tools(ctx context.Context) []*mcp.Tool {
	out := []*mcp.Tool{}
	for _, t := range toolwire.MCPTools(s.sessions.of(ctx, nil).Thread("").Tools(ctx, s.cat).List()) {
		tool := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if len(t.OutputSchema) > 0 {
			tool.OutputSchema = t.OutputSchema
		}
		if t.ReadOnly {
			tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
		}
		if t.Remote {
			tool.Meta = mcp.Meta{toolwire.RemoteMetaKey: true}
		}
		out = append(out, tool)
	}
	return out
}

// syncTools mirrors the catalog into the SDK's tool registry, whose changes
// make the SDK send tools/list_changed.
func (s *Server) syncTools() {
	want := map[string]*mcp.Tool{}
	for _, t := range s.tools(context.Background()) {
		want[t.Name] = t
	}
	applyMirror(s.mirror.tools, want, func(t *mcp.Tool) {
		// A tool the SDK rejects (applyMirror) is still listed and called
		// through the middleware.
		s.srv.AddTool(t, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return s.call(ctx, r) })
	}, s.srv.RemoveTools)
}

// call invokes one tool through a fresh snapshot of the MCP session's own
// host session: the tool sees its facts, sets its status values. When the client sent a
// progress token, ctx.progress reports become notifications/progress.
func (s *Server) call(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	p := r.Params
	ctx = withSession(ctx, r.Session)
	if token := p.GetProgressToken(); token != nil && r.Session != nil {
		ctx = starhost.WithProgress(ctx, func(done, total float64, message string) {
			// A lost notification is not the tool's failure.
			_ = r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: done, Total: total, Message: message})
		})
	}
	res := s.sessions.of(ctx, r.Session).Thread("").Tools(ctx, s.cat).Invoke(ctx, p.Name, p.Arguments)
	if errors.Is(res.Err(), starhost.ErrUnknownTool) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", p.Name)}
	}
	return toolResult(res), nil
}

// CauseMetaKey is the _meta key of a failed tools/call result that carries
// the failure's starhost.Cause (step_budget, memory_limit, callback_timeout,
// worker_failed, collateral); it is absent when the tool failed of its own
// error.
const CauseMetaKey = "crystal-star/cause"

// toolResult maps a tool result to MCP content: its content parts (MC1:
// image → image content, …), else its text, or the JSON text with
// structuredContent when the result is a JSON object.
func toolResult(res starhost.ToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: !res.OK(), Content: []mcp.Content{&mcp.TextContent{Text: toolwire.ResultText(res)}}}
	if !res.OK() && res.Error.Cause != "" {
		// Whose fault it was, for a client that acts on it (docs/mcp.md).
		out.Meta = mcp.Meta{CauseMetaKey: string(res.Error.Cause)}
	}
	if res.OK() && len(res.Parts) > 0 {
		out.Content = make([]mcp.Content, len(res.Parts))
		for i, p := range res.Parts {
			out.Content[i] = contentPart(p)
		}
	}
	if res.OK() && res.Data != nil {
		if v, ok := jsonObject(res.Data); ok {
			out.StructuredContent = v
		}
	}
	return out
}

// CallToolResult is res as this server answers a tools/call (text,
// content parts, structuredContent, the cause in _meta): the executor of
// remote tools (starhost/executor) answers the same way.
func CallToolResult(res starhost.ToolResult) *mcp.CallToolResult { return toolResult(res) }

// contentPart is the MCP content of one part: image, audio, an embedded
// resource (text or blob), a resource link for a resource without a body
// (an embedded resource needs text or blob); text otherwise.
func contentPart(p starhost.ContentPart) mcp.Content {
	switch p.Type {
	case starhost.PartImage:
		return &mcp.ImageContent{MIMEType: p.MIME, Data: p.Data}
	case starhost.PartAudio:
		return &mcp.AudioContent{MIMEType: p.MIME, Data: p.Data}
	case starhost.PartResource:
		if p.Text == "" && p.Blob == nil {
			return &mcp.ResourceLink{URI: p.URI, Name: linkName(p.URI), MIMEType: p.MIME}
		}
		return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: p.URI, MIMEType: p.MIME, Text: p.Text, Blob: p.Blob}}
	}
	return &mcp.TextContent{Text: p.Text}
}

// linkName is the name a resource link requires: the last segment of
// its URI, or the whole URI when that is empty.
func linkName(uri string) string {
	trimmed := strings.TrimRight(uri, "/")
	if name := trimmed[strings.LastIndex(trimmed, "/")+1:]; name != "" {
		return name
	}
	return uri
}

// jsonObject reports whether data is a JSON object, which every protocol
// version accepts as structured content.
func jsonObject(data json.RawMessage) (map[string]any, bool) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}
