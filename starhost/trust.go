package starhost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
	"github.com/crystal-star/crystal-star/trust"
)

// TrustFile returns the machine-local trust file: {home}/plugin-trust.json,
// beside the global config, never layered, never read from the workspace
// (DC19).
func (o *Operator) TrustFile() string { return o.h.trustFile() }

func (h *Host) trustFile() string { return h.paths().Trust() }

func (h *Host) trustStore() *trust.Store { return trust.NewStore(h.trustFile()) }

// admit is the trust seam of the lifecycle (DC17, DC20, DC22). A dev plugin
// is eligible in-process for its exact current fingerprint and nothing is
// written; an installed plugin runs only when (id, fingerprint) is granted.
// The .builtin marker grants nothing. The fingerprint is computed only for
// an installed plugin: a dev plugin's start never hashes its bundle.
func (h *Host) admit(c *lifecycle.Candidate, fingerprint func() string) []lifecycle.Blocker {
	if c.Source == contrib.SourceDev {
		return nil
	}
	id := c.ID()
	f, err := h.trustIndex() // cached until the file changes (trustcache.go)
	if err != nil {
		return []lifecycle.Blocker{{Code: contrib.TrustFileUnreadable, Message: err.Error(),
			Remedy: "fix or remove " + h.trustFile() + " by hand, then grant " + id + " again", Action: lifecycle.ActionGrant}}
	}
	fp := fingerprint()
	switch f.Verdict(id, fp) {
	case trust.Trusted:
		return nil
	case trust.Modified:
		return []lifecycle.Blocker{{Code: contrib.PluginTrustModified,
			Message: fmt.Sprintf("the content of %s changed since it was granted (now %s); none of its code runs", id, fp),
			Remedy:  "review the change, then grant " + id + " again", Action: lifecycle.ActionGrant}}
	}
	return []lifecycle.Blocker{{Code: contrib.PluginUntrusted,
		Message: "no trust grant exists for " + id + "; none of its code runs",
		Remedy:  "review the plugin, then grant " + id, Action: lifecycle.ActionGrant}}
}

// warnWorkspaceTrust notes a trust file inside the workspace: it is ignored
// (DC19).
func (h *Host) warnWorkspaceTrust() {
	p := h.paths().WorkspaceTrust()
	if _, err := os.Stat(p); err == nil {
		h.note(contrib.Diag(contrib.WorkspaceTrustIgnored, "", contrib.Pos{File: p},
			"a trust file inside the workspace is ignored; only %s grants trust", h.trustFile()))
	}
}

// installed returns the candidate with id among the installed roots, with
// its current bundle's fingerprint, computed by the host (never chosen by
// the user).
func (h *Host) installed(id string) (*lifecycle.Candidate, string, error) {
	c := lifecycle.Find(h.roots(), h.opts.Display, id)
	if c == nil || c.Manifest == nil {
		return nil, "", noPlugin(id)
	}
	b, err := lifecycle.ReadBundle(c.Dir)
	if err != nil {
		return nil, "", codeErrorf(ErrNotApplied, "plugin %s cannot be read: %w", id, err)
	}
	return c, lifecycle.Fingerprint(c.Manifest, b), nil
}

// Grant trusts the current content of plugin id (DC17). A dev plugin needs
// no grant: nothing is written and the error wraps ErrNotApplied. The
// running host re-evaluates at once (DC25).
func (o *Operator) Grant(ctx context.Context, id string) (OpResult, error) {
	h := o.h
	c, fp, err := h.installed(id)
	if err != nil {
		return OpResult{}, err
	}
	if c.Source == contrib.SourceDev {
		return h.notApplied(id, codeErrorf(ErrNotApplied, "plugin %s is a development plugin and runs without a grant; nothing was written", id))
	}
	applied, err := storeOutcome(h.trustStore().Grant(id, fp, time.Now()))
	if err != nil {
		return h.notApplied(id, codeErrorf(ErrNotApplied, "the trust file was not changed: %w", err))
	}
	h.reevaluate(ctx)
	return h.applied(id, applied), nil
}

// Revoke removes exactly one (id, fingerprint) grant (DC21): the current
// fingerprint when fingerprint is empty. Other grants of the id stay. An
// active generation that depended on it stops, its consumers first.
func (o *Operator) Revoke(ctx context.Context, id, fingerprint string) (OpResult, error) {
	h := o.h
	if fingerprint == "" {
		_, fp, err := h.installed(id)
		if err != nil {
			return OpResult{}, err
		}
		fingerprint = fp
	}
	applied, err := storeOutcome(h.trustStore().Revoke(id, fingerprint))
	if err != nil {
		return h.notApplied(id, codeErrorf(ErrNotApplied, "the trust file was not changed: %w", err))
	}
	h.reevaluate(ctx)
	return h.applied(id, applied), nil
}

// Grant is one entry of the trust file: plugin id, the fingerprint of the
// content trusted, and when.
type Grant struct {
	ID          string    `json:"id"`
	Fingerprint string    `json:"fingerprint"`
	GrantedAt   time.Time `json:"granted_at"`
}

// Grants lists the trust file's grants. An unreadable trust file is an
// error wrapping Code("TrustFileUnreadable").
func (o *Operator) Grants() ([]Grant, error) {
	f, err := o.h.trustStore().Load()
	if err != nil {
		return nil, codeErrorf(Code(contrib.TrustFileUnreadable), "%w", err)
	}
	return sandbox.ConvertAll(f.Grants, func(g trust.Grant) Grant { return Grant(g) }), nil
}

// storeOutcome reads a trust store's answer: trust.ErrNoChange is no
// failure, only nothing to write.
func storeOutcome(err error) (applied bool, _ error) {
	if errors.Is(err, trust.ErrNoChange) {
		return false, nil
	}
	return err == nil, err
}

// reevaluate re-runs admission in a started host; before Start it does
// nothing (the next Start sees the change).
func (h *Host) reevaluate(ctx context.Context) {
	if h.manager != nil {
		h.manager.Reevaluate(ctx)
	}
}

// pluginNow returns plugin id as it stands, or nil before Start or when
// no plugin has the id.
func (h *Host) pluginNow(id string) *PluginInfo {
	if h.manager == nil {
		return nil
	}
	var out *PluginInfo
	for _, p := range h.Plugins() {
		if p.ID == id && p.State != StateStopped || p.ID == id && out == nil {
			p := p
			out = &p
		}
	}
	return out
}
