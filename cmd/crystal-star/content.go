package main

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

// partLines renders a multimodal result for a terminal (MC1): text parts
// as they are, binary parts as one bracketed line with type, mime and size
// (the bytes are in `call --json`).
func partLines(parts []starhost.ContentPart) []string {
	var out []string
	for _, p := range parts {
		switch p.Type {
		case starhost.PartText:
			out = append(out, p.Text)
		case starhost.PartResource:
			out = append(out, fmt.Sprintf("[resource %s %s, %d bytes]", p.URI, p.MIME, p.Size()))
			if p.Text != "" {
				out = append(out, p.Text)
			}
		default:
			out = append(out, fmt.Sprintf("[%s %s, %d bytes]", p.Type, p.MIME, p.Size()))
		}
	}
	return out
}

// mcpContent maps content parts to MCP content (MC1): image → image
// content, audio → audio content, resource → an embedded resource.
func mcpContent(parts []starhost.ContentPart) []mcp.Content {
	out := make([]mcp.Content, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case starhost.PartImage:
			out = append(out, &mcp.ImageContent{Data: p.Data, MIMEType: p.MIME})
		case starhost.PartAudio:
			out = append(out, &mcp.AudioContent{Data: p.Data, MIMEType: p.MIME})
		case starhost.PartResource:
			out = append(out, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: p.URI, MIMEType: p.MIME, Text: p.Text, Blob: p.Blob}})
		default:
			out = append(out, &mcp.TextContent{Text: p.Text})
		}
	}
	return out
}
