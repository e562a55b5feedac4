package lifecycle

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
)

// This file holds the make-before-break half of a reload (AT2, AT3): what
// happens to a next generation that fails, how it is attached while the
// previous one still serves, and how the previous one is retired after the
// switch.

// attemptFailed records a failed attempt at p's next generation. With a
// generation serving, it keeps serving (AT3): the plugin stays active on
// the candidate that generation came from, with the attempt's diagnostics
// and a "kept" event. Without one the plugin is faulted. m.op is held. It
// returns the attempt's diagnostics as an *contrib.ActivationError.
func (m *Manager) attemptFailed(p *plugin, ds []contrib.Diagnostic) error {
	m.mu.Lock()
	p.diags = append(slices.Clone(p.cand.Diagnostics), ds...)
	g := p.gen
	if g != nil {
		// What serves is described by the manifest and bytes it came from.
		p.cand, p.fingerprint, p.state = g.cand, g.fp, Active
	} else {
		p.state = Faulted
	}
	m.mu.Unlock()
	for _, d := range ds {
		m.note(d)
	}
	if g != nil {
		m.emit(Event{Plugin: g.pub.Plugin, Kind: "kept", Generation: g.id, State: Active})
	} else {
		m.emit(Event{Plugin: p.cand.ID(), Kind: "faulted", State: Faulted})
	}
	return &contrib.ActivationError{Diagnostics: ds}
}

// activationDiagnostics returns the diagnostics of a failed Compile or
// Activate; an error that is no *contrib.ActivationError becomes one
// diagnostic with code.
func activationDiagnostics(p *plugin, err error, code contrib.Code) []contrib.Diagnostic {
	var ae *contrib.ActivationError
	if errors.As(err, &ae) {
		return ae.Diagnostics
	}
	pos := contrib.Pos{}
	if code == contrib.SyntaxError {
		pos.File = p.cand.Display
	}
	return []contrib.Diagnostic{contrib.Diag(code, p.cand.ID(), pos, "%v", err)}
}

// keepsServing reports whether blockers found while reloading are a failure
// of the next generation (a dependency or host version its new manifest
// asks for), which keeps the previous one serving, rather than the
// operator's decision to stop the plugin (disabled).
func keepsServing(bs []Blocker) bool {
	for _, b := range bs {
		if b.Code == contrib.PluginDisabled {
			return false
		}
	}
	return true
}

// blockerDiagnostics turns blockers of a next generation into its errors.
func blockerDiagnostics(id string, bs []Blocker) []contrib.Diagnostic {
	ds := make([]contrib.Diagnostic, len(bs))
	for i, b := range bs {
		ds[i] = contrib.Diag(b.Code, id, contrib.Pos{}, "%s", b.Message)
		ds[i].Remedy = b.Remedy
	}
	return ds
}

// leavesNothing reports whether a staged set contributes nothing because
// contribute() errors left every entry out: as a next generation it would
// replace a working one with an empty one, so it counts as a failure.
func leavesNothing(s *contrib.Set) bool {
	empty := len(s.Tools) == 0 && len(s.Commands) == 0 && len(s.Placeholders) == 0 &&
		len(s.StatusFields) == 0 && len(s.ClientFactories) == 0 && len(s.Classifiers) == 0 &&
		len(s.Points) == 0 && len(s.Hooks) == 0
	return empty && slices.ContainsFunc(s.Diagnostics, func(d contrib.Diagnostic) bool {
		return d.Severity == contrib.SeverityError
	})
}

// attachStaged runs every attach stage of the next generation g of p while
// the previous one still serves (CC3): the environment is complete, so the
// stages need not wait for the publication. attachAll then skips g's stages
// once and only starts its timers. m.op is held.
func (m *Manager) attachStaged(ctx context.Context, p *plugin, g *generation) {
	if m.opts.BeforeAttach != nil {
		m.opts.BeforeAttach()
	}
	for _, stage := range contrib.AttachStages {
		if !attaches(g.inst, stage) {
			continue // nothing to run: no empty call through the gate (attach.go)
		}
		g.pub.Gate.Do(ctx, func(ctx context.Context) {
			if _, err := g.inst.Attach(ctx, stage); err != nil {
				m.recordFailure(p, err)
			}
		})
	}
	g.staged = true
}

// retireReplaced drains prev, the generation a reload just replaced: calls
// admitted before the switch finish on it, later ones already run on the
// new one. Its registry entry is gone with the publication that replaced
// it, so there is nothing to revoke. Admission closes now; the drain goes
// on in the background, so the reload returns once the new generation
// serves, not once the old one drained (up to the cleanup timeout). Its
// end is the "stopped" event of prev; Close waits for it. m.op is held.
func (m *Manager) retireReplaced(p *plugin, prev *generation) {
	prev.pub.Gate.Close()
	select {
	case <-prev.pub.Gate.Drained(): // nothing running: torn down now
		m.drain(p, prev)
		return
	default:
	}
	m.pending.Add(1)
	go func() {
		defer m.pending.Done()
		select { // the wait needs no lock: other operations go on meanwhile
		case <-prev.pub.Gate.Drained():
		case <-time.After(m.opts.CleanupTimeout):
		}
		m.op.Lock()
		defer m.op.Unlock()
		m.drain(p, prev) // drained already, or cancelled now (DC26)
	}()
}
