package lifecycle

import (
	"slices"

	"github.com/crystal-star/crystal-star/contrib"
)

// A disabled plugin is stopped, not blocked (DC24, MC5): nothing prevents
// it, the operator chose to switch it off, and it has no live generation.
// Preflight still reports the switch as a PluginDisabled entry so one
// function decides admission; block hands such a verdict to stop.

// disabledReason returns the PluginDisabled entry of bs, or nil.
func disabledReason(bs []Blocker) *Blocker {
	for i := range bs {
		if bs[i].Code == contrib.PluginDisabled {
			b := bs[i]
			return &b
		}
	}
	return nil
}

// stop takes p to stopped for reason: a live generation is deactivated
// (revoked, drained, then reclaiming until the collector releases it) and
// the reason is kept for the projection. m.op is held.
func (m *Manager) stop(p *plugin, reason Blocker) {
	if p.gen != nil {
		m.deactivate(p)
	}
	m.mu.Lock()
	same := p.stopReason != nil && *p.stopReason == reason
	p.stopReason, p.blockers = &reason, nil
	if !slices.Contains([]State{Deactivating, Reclaiming}, p.state) {
		p.state = Stopped
	}
	m.mu.Unlock()
	if !same {
		d := contrib.Diag(reason.Code, p.cand.ID(), contrib.Pos{}, "%s", reason.Message)
		d.Severity, d.Remedy = contrib.SeverityNote, reason.Remedy
		m.note(d)
	}
	m.emit(Event{Plugin: p.cand.ID(), Kind: "stopped", State: Stopped})
}

// UpgradeProjection migrates a projection saved before MC5 — a disabled
// plugin then showed as blocked with a PluginDisabled blocker — to today's
// shape: stopped, with the switch as StopReason and the remaining blockers
// kept. A current projection is returned unchanged. Embedders that persist
// projections call it on what they read back.
func UpgradeProjection(p Projection) Projection {
	r := disabledReason(p.Blockers)
	if p.State != Blocked || r == nil {
		return p
	}
	p.State, p.StopReason = Stopped, r
	p.Blockers = slices.DeleteFunc(slices.Clone(p.Blockers), func(b Blocker) bool { return b.Code == contrib.PluginDisabled })
	return p
}
