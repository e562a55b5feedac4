package mcpserve

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

// skillTemplate is the URI template of the skills: skill://NAME reads the
// SKILL.md the skill tool loads. A client completes NAME through
// completion/complete.
const skillTemplate = "skill://{name}"

// publisherPoint is the contribution point through which plugins publish
// resources (docs/points.md): asked {op: "list"} and {op: "read", uri}.
const publisherPoint = starhost.PointName("resource_publisher")

// skillURI is the resource URI of the skill named name.
func skillURI(name string) string { return "skill://" + url.PathEscape(name) }

// published is one entry a plugin's publisher lists: a resource (URI) or a
// template (URITemplate).
type published struct {
	URI         string `json:"uri"`
	URITemplate string `json:"uri_template"`
	Name        string `json:"name"`
	Description string `json:"description"`
	MIMEType    string `json:"mime_type"`
}

// contents is a publisher's answer to a read.
type contents struct {
	Text     *string `json:"text"`
	Blob     string  `json:"blob"` // base64
	MIMEType string  `json:"mime_type"`
}

// catalog lists the resources (skills first, then what plugins publish, the
// first owner of a URI keeping it) and the plugins' templates.
func (s *Server) catalog(ctx context.Context) (map[string]*mcp.Resource, map[string]*mcp.ResourceTemplate) {
	res := map[string]*mcp.Resource{}
	tpl := map[string]*mcp.ResourceTemplate{skillTemplate: {URITemplate: skillTemplate, Name: "skill",
		Description: "A skill's SKILL.md by name.", MIMEType: "text/markdown"}}
	for _, sk := range s.h.Skills() {
		uri := skillURI(sk.Name)
		res[uri] = &mcp.Resource{URI: uri, Name: sk.Name, Description: sk.Description, MIMEType: "text/markdown"}
	}
	outs, _ := s.sessions.of(ctx, nil).Thread("").Resolve(publisherPoint).Collect(ctx, map[string]any{"op": "list"}, nil)
	for _, o := range outs {
		for _, p := range decodePublished(o.Value) {
			switch {
			case p.URI != "" && res[p.URI] == nil && validURI(p.URI):
				res[p.URI] = &mcp.Resource{URI: p.URI, Name: cmpOr(p.Name, p.URI), Description: p.Description, MIMEType: p.MIMEType}
			case p.URITemplate != "" && tpl[p.URITemplate] == nil && validURI(p.URITemplate):
				tpl[p.URITemplate] = &mcp.ResourceTemplate{URITemplate: p.URITemplate, Name: cmpOr(p.Name, p.URITemplate),
					Description: p.Description, MIMEType: p.MIMEType}
			}
		}
	}
	return res, tpl
}

// decodePublished reads a publisher's list answer: a list of entries or one.
func decodePublished(v any) []published {
	if _, ok := v.(map[string]any); ok {
		v = []any{v}
	}
	var out []published
	if b, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(b, &out) // a malformed answer publishes nothing
	}
	for i := range out {
		if starhost.CheckMediaType(out[i].MIMEType) != nil {
			out[i].MIMEType = "" // no media type rather than a malformed one (a line break for the client)
		}
	}
	return out
}

// validURI keeps the SDK's registry from panicking on a URI it rejects.
func validURI(u string) bool {
	p, err := url.Parse(strings.NewReplacer("{", "", "}", "").Replace(u))
	return err == nil && p.Scheme != ""
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// syncResources mirrors the resources and templates into the SDK's
// registry (resources/list_changed when a list changes) and sends
// notifications/resources/updated to the subscribers of each resource whose
// contents changed since the last sync.
func (s *Server) syncResources() {
	ctx := context.Background()
	res, tpl := s.catalog(ctx)
	applyMirror(s.mirror.resources, res, func(r *mcp.Resource) { s.srv.AddResource(r, s.read) }, s.srv.RemoveResources)
	applyMirror(s.mirror.templates, tpl, func(t *mcp.ResourceTemplate) { s.srv.AddResourceTemplate(t, s.read) }, s.srv.RemoveResourceTemplates)
	for uri := range res {
		rr, err := s.readURI(ctx, nil, uri)
		if err != nil {
			continue
		}
		b, _ := json.Marshal(rr)
		h := sha256.Sum256(b)
		sum := string(h[:])
		if prev, seen := s.contents[uri]; seen && prev != sum {
			_ = s.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
		s.contents[uri] = sum
	}
	for uri := range s.contents {
		if _, ok := res[uri]; !ok {
			delete(s.contents, uri)
		}
	}
}

// read answers resources/read for a listed resource or a template match.
func (s *Server) read(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return s.readURI(ctx, r.Session, r.Params.URI)
}

// readURI reads skill://NAME from the skills, any other URI from the first
// plugin publisher that answers for it, serving the MCP session ss (nil:
// the server's own).
func (s *Server) readURI(ctx context.Context, ss *mcp.ServerSession, uri string) (*mcp.ReadResourceResult, error) {
	if name, ok := strings.CutPrefix(uri, "skill://"); ok {
		name, _ = url.PathUnescape(name)
		text, err := s.h.SkillText(name)
		switch {
		case errors.Is(err, starhost.ErrNoSkill):
			return nil, mcp.ResourceNotFoundError(uri)
		case err != nil:
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
	}
	out, ok, err := s.sessions.of(ctx, ss).Thread("").Resolve(publisherPoint).First(ctx, map[string]any{"op": "read", "uri": uri}, nil)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var c contents
	if b, err := json.Marshal(out.Value); err != nil || json.Unmarshal(b, &c) != nil || c.Text == nil && c.Blob == "" {
		return nil, fmt.Errorf("%s: the publisher's answer for %s is neither {text} nor {blob}", out.Entry.Origin, uri)
	}
	if c.MIMEType != "" {
		if err := starhost.CheckMediaType(c.MIMEType); err != nil {
			return nil, fmt.Errorf("%s: the answer for %s: %v", out.Entry.Origin, uri, err)
		}
	}
	rc := &mcp.ResourceContents{URI: uri, MIMEType: c.MIMEType}
	if c.Text != nil {
		rc.Text = *c.Text
	} else if rc.Blob, err = base64.StdEncoding.DecodeString(c.Blob); err != nil {
		return nil, fmt.Errorf("%s: the blob of %s is not base64: %v", out.Entry.Origin, uri, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{rc}}, nil
}
