package starhost

import (
	"context"
	"strings"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// Site is where a template is bound (CC13); a placeholder's resolve sees
// it and may answer differently per site.
type Site string

// The binding sites.
const (
	SitePrompt           Site = "prompt"
	SiteAttachment       Site = "attachment"
	SiteReview           Site = "review"
	SiteCompaction       Site = "compaction"
	SiteImageDescription Site = "image_description"
)

// ParseSite returns the site named s; the error lists the sites when s
// names none.
func ParseSite(s string) (Site, error) {
	site, err := contrib.ParseSite(s)
	return Site(site), err
}

// bind is Session.Bind's work.
func (h *Host) bind(ctx context.Context, template string, site Site) string {
	if !strings.Contains(template, "{{") {
		return template
	}
	view := h.registry.View()
	facts := h.factsOf(ctx)
	var b strings.Builder
	rest := template
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(rest)
			break
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			b.WriteString(rest)
			break
		}
		name := rest[i+2 : i+2+j]
		token := rest[i : i+2+j+2]
		b.WriteString(rest[:i])
		if contrib.CheckPlaceholderName(name) != nil {
			// Not a token: emit "{{" and rescan after it, so "{{{{x}}" works.
			b.WriteString("{{")
			rest = rest[i+2:]
			continue
		}
		b.WriteString(h.resolveToken(ctx, view, facts, name, token, site))
		rest = rest[i+2+j+2:]
	}
	return b.String()
}

func (h *Host) resolveToken(ctx context.Context, view *contrib.View, facts Facts, name, token string, site Site) string {
	if v, owned := h.hostPlaceholder(facts, name); owned {
		return v
	}
	e, ok := view.Placeholder(name)
	if !ok {
		return token
	}
	gate := view.Gate(e.Plugin, e.Generation)
	if gate == nil {
		return token
	}
	out := token
	gate.Do(ctx, func(ctx context.Context) {
		text, produced, err := e.Placeholder.Resolve(ctx, contrib.Site(site))
		switch {
		case err != nil:
			d := builtins.FailureDiagnostic(err)
			d.Code, d.Severity = contrib.PlaceholderFailed, contrib.PlaceholderFailed.Severity()
			d.Message = "{{" + name + "}} was left in place: " + d.Message
			h.note(d)
		case !produced:
			h.note(contrib.Diag(contrib.PlaceholderFailed, e.Plugin, e.Placeholder.Pos,
				"{{%s}} was left in place: resolve returned nothing", name))
		default:
			out = text
		}
	})
	return out
}

// hostPlaceholder resolves a name the host owns (Options.HostPlaceholders)
// from the facts. Owned names without a fact resolve to "".
func (h *Host) hostPlaceholder(f Facts, name string) (string, bool) {
	for _, owned := range h.opts.HostPlaceholders {
		if !strings.EqualFold(owned, name) {
			continue
		}
		switch strings.ToLower(owned) {
		case "mode":
			return f.Mode, true
		case "workspace":
			return f.Workspace, true
		case "session_id":
			return f.SessionID, true
		case "approval_mode":
			return f.ApprovalMode, true
		case "provider":
			return f.Provider, true
		case "model":
			return f.Model, true
		}
		return "", true
	}
	return "", false
}
