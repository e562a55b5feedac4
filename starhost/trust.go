package starhost

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
	"github.com/crystal-star/crystal-star/trust"
)

// TrustFile returns the machine-local trust file: {home}/plugin-trust.json,
// beside the global config, never layered, never read from the workspace
// (DC19).
func (h *Host) TrustFile() string { return filepath.Join(h.opts.Home, "plugin-trust.json") }

func (h *Host) trustStore() *trust.Store { return trust.NewStore(h.TrustFile()) }

// admit is the trust seam of the lifecycle (DC17, DC20, DC22). A dev plugin
// is eligible in-process for its exact current fingerprint and nothing is
// written; an installed plugin runs only when (id, fingerprint) is granted.
// The .builtin marker grants nothing.
func (h *Host) admit(c *lifecycle.Candidate, fp string) []lifecycle.Blocker {
	if c.Source == contrib.SourceDev {
		return nil
	}
	id := c.ID()
	f, err := h.trustIndex() // cached until the file changes (trustcache.go)
	if err != nil {
		return []lifecycle.Blocker{{Code: contrib.TrustFileUnreadable, Message: err.Error(),
			Remedy: "fix or remove " + h.TrustFile() + " by hand, then run: crystal-star trust grant " + id}}
	}
	switch f.Verdict(id, fp) {
	case trust.Trusted:
		return nil
	case trust.Modified:
		return []lifecycle.Blocker{{Code: contrib.PluginTrustModified,
			Message: fmt.Sprintf("the content of %s changed since it was granted (now %s); none of its code runs", id, fp),
			Remedy:  "review the change, then run: crystal-star trust grant " + id}}
	}
	return []lifecycle.Blocker{{Code: contrib.PluginUntrusted,
		Message: "no trust grant exists for " + id + "; none of its code runs",
		Remedy:  "review the plugin, then run: crystal-star trust grant " + id}}
}

// warnWorkspaceTrust notes a trust file inside the workspace: it is ignored
// (DC19).
func (h *Host) warnWorkspaceTrust() {
	p := filepath.Join(h.opts.Workspace, ".crystal", "plugin-trust.json")
	if _, err := os.Stat(p); err == nil {
		h.note(contrib.Diag(contrib.WorkspaceTrustIgnored, "", contrib.Pos{File: p},
			"a trust file inside the workspace is ignored; only %s grants trust", h.TrustFile()))
	}
}

// Result is the outcome of a plugin operation (DC29).
type Result string

// The outcomes.
const (
	Applied    Result = "applied"
	NoChange   Result = "no_change"
	NotApplied Result = "not_applied"
)

// OpResult is what an operation reports: the result and the plugin as it
// now stands, with its blockers and how to resolve them. An applied
// operation may still leave the plugin blocked.
type OpResult struct {
	Result Result      `json:"result"`
	Reason string      `json:"reason,omitempty"`
	Plugin *PluginInfo `json:"plugin"`
}

// installed returns the candidate with id among the installed roots, with
// its current bundle's fingerprint, computed by the host (never chosen by
// the user).
func (h *Host) installed(id string) (*lifecycle.Candidate, string, error) {
	for _, c := range lifecycle.Discover(h.roots(), h.opts.Display) {
		if c.ID() != id || c.Shadowed || c.Manifest == nil {
			continue
		}
		b, err := lifecycle.ReadBundle(c.Dir)
		if err != nil {
			return nil, "", err
		}
		return c, lifecycle.Fingerprint(c.Manifest, b), nil
	}
	return nil, "", fmt.Errorf("no plugin %q [%w]", id, ErrNoPlugin)
}

// Grant trusts the current content of plugin id (DC17). A dev plugin needs
// no grant: the result is not_applied. The running host re-evaluates at once
// (DC25).
func (h *Host) Grant(ctx context.Context, id string) (OpResult, error) {
	c, fp, err := h.installed(id)
	if err != nil {
		return OpResult{Result: NotApplied}, err
	}
	if c.Source == contrib.SourceDev {
		return h.opResult(id, NotApplied, "development plugins run without a grant (DC22); nothing was written"), nil
	}
	applied, err := h.trustStore().Grant(id, fp, time.Now())
	if err != nil {
		return h.opResult(id, NotApplied, err.Error()), err
	}
	h.reevaluate(ctx)
	return h.opResult(id, outcome(applied), ""), nil
}

// Revoke removes exactly one (id, fingerprint) grant (DC21): the current
// fingerprint when fingerprint is empty. Other grants of the id stay. An
// active generation that depended on it stops, its consumers first.
func (h *Host) Revoke(ctx context.Context, id, fingerprint string) (OpResult, error) {
	if fingerprint == "" {
		_, fp, err := h.installed(id)
		if err != nil {
			return OpResult{Result: NotApplied}, err
		}
		fingerprint = fp
	}
	applied, err := h.trustStore().Revoke(id, fingerprint)
	if err != nil {
		return h.opResult(id, NotApplied, err.Error()), err
	}
	h.reevaluate(ctx)
	return h.opResult(id, outcome(applied), ""), nil
}

// Grants lists the trust file's grants.
func (h *Host) Grants() ([]trust.Grant, error) {
	f, err := h.trustStore().Load()
	if err != nil {
		return nil, err
	}
	return f.Grants, nil
}

func outcome(applied bool) Result {
	if applied {
		return Applied
	}
	return NoChange
}

// reevaluate re-runs admission in a started host; before Start it does
// nothing (the next Start sees the change).
func (h *Host) reevaluate(ctx context.Context) {
	if h.manager != nil {
		h.manager.Reevaluate(ctx)
	}
}

// opResult attaches the plugin's current projection.
func (h *Host) opResult(id string, r Result, reason string) OpResult {
	out := OpResult{Result: r, Reason: reason}
	if h.manager == nil {
		return out
	}
	for _, p := range h.Plugins() {
		if p.ID == id && p.State != lifecycle.Stopped || p.ID == id && out.Plugin == nil {
			p := p
			out.Plugin = &p
		}
	}
	return out
}
