package mcpserve

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

// skillTemplate is the URI template of the skills: skill://NAME reads the
// SKILL.md the skill tool loads. A client completes NAME through
// completion/complete.
const skillTemplate = "skill://{name}"

// skillURI is the resource URI of the skill named name.
func skillURI(name string) string { return "skill://" + url.PathEscape(name) }

// resources lists a resource per skill, by URI.
func (s *Server) resources() map[string]*mcp.Resource {
	out := map[string]*mcp.Resource{}
	for _, sk := range s.h.Skills() {
		uri := skillURI(sk.Name)
		out[uri] = &mcp.Resource{URI: uri, Name: sk.Name, Description: sk.Description, MIMEType: "text/markdown"}
	}
	return out
}

// syncResources mirrors the skills into the SDK's resource registry
// (resources/list_changed when the list changes) and sends
// notifications/resources/updated to the subscribers of each skill whose
// text changed since the last sync.
func (s *Server) syncResources() {
	want := s.resources()
	if !s.templated {
		s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: skillTemplate, Name: "skill",
			Description: "A skill's SKILL.md by name.", MIMEType: "text/markdown"}, s.readSkill)
		s.templated = true
	}
	applyMirror(s.mirror.resources, want, func(r *mcp.Resource) { s.srv.AddResource(r, s.readSkill) }, s.srv.RemoveResources)
	for uri, r := range want {
		text, err := s.h.SkillText(r.Name)
		if err != nil {
			continue
		}
		h := sha256.Sum256([]byte(text))
		sum := string(h[:])
		if prev, seen := s.contents[uri]; seen && prev != sum {
			_ = s.srv.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
		s.contents[uri] = sum
	}
	for uri := range s.contents {
		if _, ok := want[uri]; !ok {
			delete(s.contents, uri)
		}
	}
}

// readSkill reads skill://NAME.
func (s *Server) readSkill(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := r.Params.URI
	name, ok := strings.CutPrefix(uri, "skill://")
	if ok {
		name, _ = url.PathUnescape(name)
	}
	text, err := s.h.SkillText(name)
	if !ok || errors.Is(err, starhost.ErrNoSkill) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
}
