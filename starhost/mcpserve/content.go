package mcpserve

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

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
