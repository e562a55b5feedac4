package mcpserve

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestContentParts: each kind of content part becomes the matching MCP
// content (the mapping tool results will use once they carry parts).
func TestContentParts(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G'}
	if c, ok := contentPart(Part{Kind: "image", MIMEType: "image/png", Data: png}).(*mcp.ImageContent); !ok || c.MIMEType != "image/png" || string(c.Data) != string(png) {
		t.Errorf("image part = %#v", c)
	}
	if c, ok := contentPart(Part{Kind: "audio", MIMEType: "audio/wav", Data: []byte("RIFF")}).(*mcp.AudioContent); !ok || c.MIMEType != "audio/wav" {
		t.Errorf("audio part = %#v", c)
	}
	if c, ok := contentPart(Part{Kind: "resource", URI: "mem://a", MIMEType: "text/plain", Text: "hi"}).(*mcp.EmbeddedResource); !ok ||
		c.Resource.URI != "mem://a" || c.Resource.Text != "hi" {
		t.Errorf("resource part = %#v", c)
	}
	if c, ok := contentPart(Part{Kind: "resource_link", URI: "mem://b"}).(*mcp.ResourceLink); !ok || c.URI != "mem://b" {
		t.Errorf("resource link part = %#v", c)
	}
	if c, ok := contentPart(Part{Kind: "text", Text: "plain"}).(*mcp.TextContent); !ok || c.Text != "plain" {
		t.Errorf("text part = %#v", c)
	}
}
