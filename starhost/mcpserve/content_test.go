package mcpserve

import (
	"github.com/crystal-star/crystal-star/starhost"

	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestContentParts: each kind of content part becomes the matching MCP
// content, in tool results (MC1).
func TestContentParts(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G'}
	if c, ok := contentPart(starhost.ContentPart{Type: starhost.PartImage, MIME: "image/png", Data: png}).(*mcp.ImageContent); !ok || c.MIMEType != "image/png" || string(c.Data) != string(png) {
		t.Errorf("image part = %#v", c)
	}
	if c, ok := contentPart(starhost.ContentPart{Type: starhost.PartAudio, MIME: "audio/wav", Data: []byte("RIFF")}).(*mcp.AudioContent); !ok || c.MIMEType != "audio/wav" {
		t.Errorf("audio part = %#v", c)
	}
	if c, ok := contentPart(starhost.ContentPart{Type: starhost.PartResource, URI: "mem://a", MIME: "text/plain", Text: "hi"}).(*mcp.EmbeddedResource); !ok ||
		c.Resource.URI != "mem://a" || c.Resource.Text != "hi" {
		t.Errorf("resource part = %#v", c)
	}
	if c, ok := contentPart(starhost.ContentPart{Type: starhost.PartResource, URI: "mem://b", MIME: "application/octet-stream", Blob: []byte{1}}).(*mcp.EmbeddedResource); !ok ||
		c.Resource.URI != "mem://b" || len(c.Resource.Blob) != 1 {
		t.Errorf("blob resource part = %#v", c)
	}
	// A resource without a body is a link: an embedded resource needs text or blob.
	if c, ok := contentPart(starhost.ContentPart{Type: starhost.PartResource, URI: "file:///docs/notes.md", MIME: "text/markdown"}).(*mcp.ResourceLink); !ok ||
		c.URI != "file:///docs/notes.md" || c.Name != "notes.md" || c.MIMEType != "text/markdown" {
		t.Errorf("body-less resource part = %#v", c)
	}
	if c, ok := contentPart(starhost.ContentPart{Type: starhost.PartText, Text: "plain"}).(*mcp.TextContent); !ok || c.Text != "plain" {
		t.Errorf("text part = %#v", c)
	}
}
