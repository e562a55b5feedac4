package toolsets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

// ErrToolError is the code of a tool set's answer with isError: the
// server's text is the message.
const ErrToolError starhost.Code = "tool_error"

// ErrCallTimeout is the code of a call to a set that did not answer
// within Options.CallTimeout (by default the host's callback_timeout).
const ErrCallTimeout starhost.Code = "tool_set_timeout"

// externalTool is the catalog entry of one MCP tool of the set. Its Run
// calls the live session; while the set is down it answers
// tool_unavailable.
func (s *set) externalTool(t *mcp.Tool) starhost.ExternalTool {
	params, err := json.Marshal(t.InputSchema)
	if err != nil || string(params) == "null" {
		params = []byte(`{"type":"object"}`)
	}
	x := starhost.ExternalTool{Name: t.Name, ToolSet: s.name, Description: t.Description, Catalogs: s.cfg.Catalog(),
		Parameters: params, Multimodal: true}
	if a := t.Annotations; a != nil {
		x.ReadOnly = a.ReadOnlyHint
	}
	name := t.Name
	x.Run = func(ctx context.Context, args any) starhost.ToolResult {
		cs := s.current()
		if cs == nil {
			return failure(starhost.ErrToolUnavailable, fmt.Sprintf("tool set %q is not running; the host is restarting it", s.name))
		}
		cctx, cancel := context.WithTimeoutCause(ctx, s.r.opts.CallTimeout, errCallTimeout)
		defer cancel()
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			if ctx.Err() == nil && errors.Is(context.Cause(cctx), errCallTimeout) {
				return failure(ErrCallTimeout, fmt.Sprintf("tool set %q did not answer %q within %s; the call was cancelled", s.name, name, s.r.opts.CallTimeout))
			}
			if s.current() != cs {
				return failure(starhost.ErrToolUnavailable, fmt.Sprintf("tool set %q went down during the call", s.name))
			}
			return failure(starhost.ErrToolFailed, fmt.Sprintf("tool set %q: %v", s.name, err))
		}
		return Result(res)
	}
	return x
}

// errCallTimeout is the cause of a call's context past Options.CallTimeout.
var errCallTimeout = errors.New("tool set call timeout")

// Result converts an MCP tool result (MC1): text stays text, images, audio
// and embedded resources become content parts, structured content JSON.
// The host side of remote tools (starhost/remote) reads executors'
// answers with it too.
func Result(res *mcp.CallToolResult) starhost.ToolResult {
	var parts []starhost.ContentPart
	var texts []string
	binary := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			texts = append(texts, c.Text)
			parts = append(parts, starhost.ContentPart{Type: starhost.PartText, Text: c.Text})
		case *mcp.ImageContent:
			binary = true
			parts = append(parts, starhost.ContentPart{Type: starhost.PartImage, Data: c.Data, MIME: c.MIMEType})
		case *mcp.AudioContent:
			binary = true
			parts = append(parts, starhost.ContentPart{Type: starhost.PartAudio, Data: c.Data, MIME: c.MIMEType})
		case *mcp.EmbeddedResource:
			if r := c.Resource; r != nil {
				binary = true
				parts = append(parts, starhost.ContentPart{Type: starhost.PartResource, URI: r.URI, MIME: r.MIMEType, Text: r.Text, Blob: r.Blob})
			}
		}
	}
	text := strings.Join(texts, "\n")
	switch {
	case res.IsError:
		return failure(ErrToolError, text)
	case binary:
		return starhost.ToolResult{Text: text, Parts: parts} // the host checks the parts' sizes
	case res.StructuredContent != nil:
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			return starhost.ToolResult{Data: data}
		}
	}
	return starhost.ToolResult{Text: text}
}

// failure is a failed result with code and message.
func failure(code starhost.Code, message string) starhost.ToolResult {
	return starhost.ToolResult{Error: &starhost.ToolError{Code: code, Message: message}}
}
