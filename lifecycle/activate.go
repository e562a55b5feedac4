package lifecycle

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"
	"weak"

	"golang.org/x/mod/semver"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/trust"
)

// preflight returns the blockers of p that need no bundle: disabled,
// host version, dependencies (DC15, DC24). m.op is held.
func (m *Manager) preflight(p *plugin) []Blocker {
	c := p.cand
	mf := c.Manifest
	var bs []Blocker
	switch {
	case !mf.IsEnabled():
		bs = append(bs, Blocker{Code: contrib.PluginDisabled, Message: "the plugin is disabled by enabled = false in its plugin.toml",
			Remedy: "set enabled = true in " + c.Display + "/" + ManifestName})
	case m.opts.Disabled(mf.ID):
		bs = append(bs, Blocker{Code: contrib.PluginDisabled, Message: "the plugin is disabled in config.toml",
			Remedy: "enable it: remove " + mf.ID + " from the disabled list", Action: ActionEnable})
	}
	if mf.MinHostVersion != "" && m.opts.HostVersion != "" && semver.Compare("v"+m.opts.HostVersion, "v"+mf.MinHostVersion) < 0 {
		bs = append(bs, Blocker{Code: contrib.HostVersionTooOld,
			Message: fmt.Sprintf("the plugin needs crystal-star %s or newer; this is %s", mf.MinHostVersion, m.opts.HostVersion),
			Remedy:  "upgrade the host, or lower min_host_version in plugin.toml"})
	}
	return append(bs, m.dependencyBlockers(p)...)
}

// admit runs the trust seam.
func (m *Manager) admit(c *Candidate, fp contentFP) []Blocker {
	if m.opts.Admit != nil {
		return m.opts.Admit(c, fp.String)
	}
	if c.Source == contrib.SourceDev {
		return nil
	}
	return []Blocker{{Code: contrib.PluginUntrusted, Message: "no trust grant exists for " + c.ID() + "; none of its code runs",
		Remedy: "review the plugin, then grant trust to its content", Action: ActionGrant}}
}

// Fingerprint computes a bundle's content fingerprint (DC18) from the same
// snapshot that executes. The snapshot remembers it for the manifest
// (bundle.go): Start asks once to decide on working ahead, once to admit.
func Fingerprint(m *Manifest, b *Bundle) string {
	return b.fingerprint(m, func() string {
		return trust.Fingerprint(trust.Declarations{
			ID: m.ID, Version: m.Version, Entry: m.Entry, MinHostVersion: m.MinHostVersion,
			Capabilities: m.Capabilities, Exports: m.Exports, Dependencies: m.Dependencies,
		}, b.Files())
	})
}

// contentFP is the fingerprint of a snapshot under a manifest, computed on
// first use (and then remembered by the snapshot): a dev plugin's start
// never needs it, a status, a grant or a reload's comparison does. The
// zero value is the fingerprint of no bundle read yet, "".
type contentFP struct {
	m *Manifest
	b *Bundle
}

func (f contentFP) String() string {
	if f.b == nil || f.m == nil {
		return ""
	}
	return Fingerprint(f.m, f.b)
}

func (m *Manager) request(p *plugin, b *Bundle, gen string) contrib.ActivationRequest {
	return m.requestFor(p, p.cand, b, gen)
}

func (m *Manager) requestFor(p *plugin, c *Candidate, b *Bundle, gen string) contrib.ActivationRequest {
	mf := c.Manifest
	return contrib.ActivationRequest{
		Plugin: mf.ID, DisplayName: mf.Name(), Generation: gen, Source: c.Source,
		Bundle: b, Entry: mf.Entry, SourceRoot: c.Display, Directory: filepath.Base(c.Dir),
		Capabilities: mf.Capabilities, Exports: mf.Exports,
		Providers: m.providerExports(p), Rules: m.opts.Rules, Services: m.opts.Services,
		Fault: func(d contrib.Diagnostic) { m.faultLater(p, gen, d) },
	}
}

// activate takes p from stopped/blocked/faulted (or, for a reload, active)
// to active, faulted or blocked. m.op is held. A caller's cancellation
// cancels the module's execution but never strands p in activating: every
// path ends in a settled state.
//
// A reload is make-before-break (AT2): the next generation is compiled,
// executed, checked and attached in staging while the previous one keeps
// serving; the registry then replaces the plugin's generation in one
// publication, and only then does the previous one drain. Any failure of the
// next generation keeps the previous one serving (AT3, attemptFailed).
// It returns an error exactly when the candidate's content did not go live:
// the attempt failed (*contrib.ActivationError; the previous generation, if
// any, keeps serving) or the plugin is blocked (*BlockedError). An unchanged
// fingerprint, a shadowed candidate, a reactivation deferred until the
// previous teardown ends (DC26) and a disabled plugin (stopped, MC5) are not
// errors.
func (m *Manager) activate(ctx context.Context, p *plugin, force *Bundle) error {
	c := p.cand
	if c.Manifest == nil || c.Shadowed {
		return nil // nothing runs from a shadowed or unusable candidate
	}
	id := c.Manifest.ID
	if p.teardown {
		p.deferred = true // DC26: cannot reactivate until teardown finishes
		return nil
	}
	p.deferred = false
	start := time.Now()
	prev := p.gen
	if bs := m.preflight(p); len(bs) > 0 {
		if prev != nil && keepsServing(bs) {
			return m.attemptFailed(p, blockerDiagnostics(id, bs))
		}
		return m.block(p, bs)
	}
	b := force
	if b == nil {
		var err error
		if b, err = ReadBundle(c.Dir); err != nil {
			return m.attemptFailed(p, []contrib.Diagnostic{contrib.Diag(contrib.ExecutionFailed, id, contrib.Pos{File: c.Display}, "cannot read the plugin bundle: %v", err)})
		}
	}
	fp := contentFP{c.Manifest, b}
	m.mu.Lock()
	p.fingerprint = fp
	m.mu.Unlock()
	if bs := m.admit(c, fp); len(bs) > 0 {
		return m.block(p, bs) // DC17: changed bytes without a grant stop what ran
	}
	if prev != nil && prev.fp.String() == fp.String() && p.state == Active && !p.stale {
		// The running bytes again: diagnostics of a source in between go.
		m.mu.Lock()
		p.diags = append(slices.Clone(c.Diagnostics), prev.pub.Set.Diagnostics...)
		m.mu.Unlock()
		m.emit(Event{Plugin: id, Kind: "unchanged", Generation: prev.id, State: Active})
		return nil // AT3: reloading an unchanged fingerprint is a no-op
	}
	req := m.request(p, b, "")
	if err := m.opts.Activator.Compile(req); err != nil {
		m.recordDeclared(p, b)
		return m.attemptFailed(p, activationDiagnostics(p, err, contrib.SyntaxError))
	}
	gen := m.generationFor(p) // reserved in load order when prepared ahead (parallel.go)
	req = m.request(p, b, gen)
	if prev == nil {
		m.mu.Lock()
		p.state, p.blockers, p.stopReason, p.diags = activating, nil, nil, slices.Clone(c.Diagnostics)
		m.mu.Unlock()
	}
	inst, err := m.ahead().activateWithin(ctx, req, m.opts.ActivationTimeout)
	if err != nil {
		m.recordDeclared(p, b)
		return m.attemptFailed(p, activationDiagnostics(p, err, contrib.ExecutionFailed))
	}
	set := inst.Set()
	if prev != nil && leavesNothing(set) {
		inst.Close()
		return m.attemptFailed(p, set.Diagnostics)
	}
	// AT1: dependencies and admission once more, then publish in one step.
	if bs := m.dependencyBlockers(p); len(bs) > 0 && prev != nil {
		inst.Close()
		return m.attemptFailed(p, blockerDiagnostics(id, bs))
	}
	if bs := m.admit(c, fp); len(bs) > 0 {
		inst.Close()
		return m.block(p, bs)
	}
	if m.opts.Validate != nil {
		set.Diagnostics = append(set.Diagnostics, m.opts.Validate(id, set)...)
	}
	pub := &contrib.Published{Plugin: id, Generation: gen, Rank: c.Rank, Source: c.Source, Set: set, Gate: contrib.NewGate()}
	g := &generation{id: gen, inst: inst, pub: pub, bundle: b, fp: fp, exports: inst.Exports(), cand: c}
	m.mu.Lock()
	p.blockers, p.diags = nil, append(slices.Clone(c.Diagnostics), set.Diagnostics...)
	m.mu.Unlock()
	if prev != nil {
		m.attachStaged(ctx, p, g)
	}
	m.opts.Registry.Publish(pub) // replaces prev in the same step
	m.mu.Lock()
	p.gen, p.state, p.stale = g, Active, false
	m.mu.Unlock()
	for _, d := range set.Diagnostics {
		m.note(d)
	}
	kind := "activated"
	var prevInst contrib.Instance
	if prev != nil {
		kind, prevInst = "reloaded", prev.inst
	}
	// The new generation serves from the publication on: say so before the
	// previous one drains (which may take up to the cleanup timeout).
	// A generation built ahead (parallel.go) spent most of its time there:
	// the worker's start, the compile, the top-level run.
	elapsed := time.Since(start) + m.ahead().spentAhead(id)
	m.emit(Event{Plugin: id, Kind: kind, Generation: gen, State: Active, Elapsed: elapsed, Instance: inst, Previous: prevInst})
	if prev != nil {
		m.retireReplaced(p, prev)
	}
	return nil
}

func (m *Manager) block(p *plugin, bs []Blocker) error {
	if r := disabledReason(bs); r != nil {
		m.stop(p, *r) // MC5: disabled is stopped, not blocked
		return nil    // the operator's decision, carried out
	}
	m.mu.Lock()
	p.stopReason = nil
	m.mu.Unlock()
	if p.gen != nil {
		cs := m.consumersOf(p.cand.ID())
		for i := len(cs) - 1; i >= 0; i-- {
			m.deactivate(cs[i]) // DC13: consumers stop before their provider
		}
		m.deactivate(p)
	}
	m.mu.Lock()
	same := p.state == Blocked && slices.Equal(p.blockers, bs)
	p.state, p.blockers = Blocked, bs
	m.mu.Unlock()
	if !same {
		for _, b := range bs {
			d := contrib.Diag(b.Code, p.cand.ID(), contrib.Pos{}, "%s", b.Message)
			d.Severity, d.Remedy = contrib.SeverityNote, b.Remedy
			m.note(d)
		}
	}
	m.emit(Event{Plugin: p.cand.ID(), Kind: "blocked", State: Blocked})
	return &BlockedError{Plugin: p.cand.ID(), Blockers: bs}
}

func (m *Manager) fail(p *plugin, d contrib.Diagnostic) {
	m.mu.Lock()
	p.state = Faulted
	p.diags = append(p.diags, d)
	m.mu.Unlock()
	m.note(d)
	m.emit(Event{Plugin: p.cand.ID(), Kind: "faulted", State: Faulted})
}

// fault is owned work of generation gen failing (a host builtin panicked in
// a callback): the generation is stopped and the plugin faulted.
func (m *Manager) fault(p *plugin, gen string, d contrib.Diagnostic) {
	m.op.Lock()
	defer m.op.Unlock()
	if p.gen == nil || p.gen.id != gen {
		return
	}
	m.deactivate(p)
	m.fail(p, d)
}

// faultLater records a fault reported by a generation's own machinery
// (a dead worker reports every plugin it served before the failing call
// returns) without blocking the reporter: the fault waits for m.op and
// for the generation's calls to drain. SettleFaults waits for it.
func (m *Manager) faultLater(p *plugin, gen string, d contrib.Diagnostic) {
	m.mu.Lock()
	m.faulting++
	m.mu.Unlock()
	go func() {
		defer func() {
			m.mu.Lock()
			m.faulting--
			if m.faulting == 0 {
				m.settledCond().Broadcast()
			}
			m.mu.Unlock()
		}()
		m.fault(p, gen, d)
	}()
}

// SettleFaults returns once every fault reported so far is recorded: after
// a call failed because its worker died (CauseWorkerFailed), the plugins
// that worker served are faulted, their notes sent, before the caller
// looks (issue 26, point 2). It must not be called under an operation.
func (m *Manager) SettleFaults() {
	m.mu.Lock()
	for m.faulting > 0 {
		m.settledCond().Wait()
	}
	m.mu.Unlock()
}

// settledCond is the condition SettleFaults waits on. m.mu is held.
func (m *Manager) settledCond() *sync.Cond {
	if m.settled == nil {
		m.settled = sync.NewCond(&m.mu)
	}
	return m.settled
}

// cancelGrace is how long cancelled work has to stop before its teardown
// counts as pending.
const cancelGrace = 50 * time.Millisecond

// deactivate revokes every handle of p's generation first (old snapshots
// now get tool_unavailable), closes admission, cancels running work and
// drains it up to the cleanup timeout (DC26). Work that ignores cancellation
// leaves teardown pending. m.op is held.
func (m *Manager) deactivate(p *plugin) {
	g := p.gen
	if g == nil {
		return
	}
	m.opts.Registry.Revoke(g.pub.Plugin, g.id)
	m.setState(p, Deactivating)
	m.drain(p, g)
}

// drain closes admission to g, a generation no longer published (revoked,
// or replaced by a reload), and waits for its calls up to the cleanup
// timeout (DC26). When g is still p's generation, p has none afterwards.
// m.op is held.
func (m *Manager) drain(p *plugin, g *generation) {
	g.pub.Gate.Close()
	r := &retiredGen{plugin: g.pub.Plugin, id: g.id, ref: weak.Make(g.pub.Set)}
	m.mu.Lock()
	if p.gen == g {
		p.gen = nil
	}
	m.retire(r) // reclaim bookkeeping, amortised (reclaim.go)
	m.mu.Unlock()
	finish := func() {
		g.inst.Close()
		m.mu.Lock()
		m.tornDown(r) // once per batch in bulk deactivation (reclaim.go)
		p.teardown = false
		if p.state == Deactivating {
			p.state = Reclaiming
		}
		m.mu.Unlock()
		m.emit(Event{Plugin: g.pub.Plugin, Kind: "stopped", Generation: g.id, State: Reclaiming})
	}
	// Calls already running finish on their generation (DC12); past the
	// cleanup timeout they are cancelled, and work that ignores that leaves
	// teardown pending (DC26).
	drained := false
	select {
	case <-g.pub.Gate.Drained():
		drained = true
	case <-time.After(m.opts.CleanupTimeout):
		g.pub.Gate.Cancel()
		select {
		case <-g.pub.Gate.Drained():
			drained = true
		case <-time.After(cancelGrace):
		}
	}
	if drained {
		g.pub.Gate.Cancel() // release the gate's context
		finish()
	} else {
		m.mu.Lock()
		p.teardown = true
		m.overdue = append(m.overdue, g.pub.Plugin+"@"+g.id)
		m.mu.Unlock()
		m.pending.Add(1)
		go func() {
			defer m.pending.Done()
			<-g.pub.Gate.Drained()
			m.op.Lock()
			finish()
			m.op.Unlock()
			m.Reevaluate(context.Background())
		}()
	}
}

// attachAll runs the attach stages (CC3): `attach` of every active plugin,
// then, for the plugins in only (all when nil), attach_session,
// attach_clients, attach_data_dirs and attach_status. A failing callback is
// a diagnostic; it faults nobody.
func (m *Manager) attachAll(ctx context.Context, only map[string]bool) {
	m.mu.RLock()
	ps := slices.Clone(m.plugins)
	m.mu.RUnlock()
	if m.opts.BeforeAttach != nil {
		m.opts.BeforeAttach()
	}
	for _, stage := range contrib.AttachStages {
		for _, p := range ps {
			g := p.gen
			if g == nil || g.staged || (stage != contrib.AttachEnv && only != nil && !only[g.pub.Plugin]) {
				continue
			}
			if !attaches(g.inst, stage) {
				continue // nothing to run: no empty call through the gate (attach.go)
			}
			g.pub.Gate.Do(ctx, func(ctx context.Context) {
				if _, err := g.inst.Attach(ctx, stage); err != nil {
					m.recordFailure(p, err)
				}
			})
		}
	}
	for _, p := range ps {
		g := p.gen
		if g == nil || only != nil && !only[g.pub.Plugin] {
			continue
		}
		g.staged = false // attached once; later catalog reloads attach it again
		if m.opts.Attached != nil {
			m.opts.Attached(g.pub.Plugin, g.inst)
		}
		if s, ok := g.inst.(contrib.Starter); ok {
			s.Start(g.pub.Gate)
		}
	}
}

// recordFailure notes a failed callback as a diagnostic of p.
func (m *Manager) recordFailure(p *plugin, err error) {
	var d contrib.Diagnostic
	if df, ok := err.(interface{ Diagnostic() contrib.Diagnostic }); ok {
		d = df.Diagnostic()
	} else {
		d = contrib.Diag(contrib.CallbackFailed, p.cand.ID(), contrib.Pos{}, "%v", err)
	}
	m.mu.Lock()
	p.diags = append(p.diags, d)
	m.mu.Unlock()
	m.note(d)
}

// recordDeclared tells the registry the tools p's bundle declares when p
// has no generation serving (its first activation is failing), so a call
// naming one answers tool_unavailable with the reason, as for a plugin
// that had been active (issue 24, point 11).
func (m *Manager) recordDeclared(p *plugin, b *Bundle) {
	if p.gen != nil || m.opts.DeclaredTools == nil || m.opts.Registry == nil {
		return
	}
	m.opts.Registry.RecordDeclared(p.cand.ID(), m.opts.DeclaredTools(b.Files()))
}
