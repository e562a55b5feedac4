package lifecycle

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
)

// Start and Rescan do on all cores what has no effect a caller can see:
// reading manifests and bundles, and compiling and executing the modules of
// independent plugins (no dependencies; preflight and admission passed).
// The activations then run one after another in dependency order and take
// the results computed ahead, so every outcome users see comes in the order
// it always had: notes (the ones a module sends while it executes are held
// and delivered at its turn), events, generation ids (reserved in that
// order), status-field admission (first in load order wins), publication,
// and the dependency checks against providers' states. A plugin with
// dependencies executes at its turn, after its providers. See
// docs/lifecycle.md, "Starting many plugins".

// forEach calls f(i) for every i in [0, n) on up to GOMAXPROCS goroutines
// and returns when all calls have returned. f must be safe for concurrent
// use.
func forEach(n int, f func(i int)) { forEachWidth(runtime.GOMAXPROCS(0), n, f) }

// forEachWidth is forEach on up to width goroutines.
func forEachWidth(width, n int, f func(i int)) {
	workers := min(width, n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		})
	}
	wg.Wait()
}

// aheadActivator wraps the manager's activator. A Compile or Activate done
// ahead of time, in parallel, answers the call activate makes later for the
// same plugin, bundle snapshot and generation; anything else goes to the
// activator. Safe for concurrent use.
type aheadActivator struct {
	contrib.Activator
	mu   sync.Mutex
	done map[string]*aheadResult // by plugin id
	// spent is what an Activate answered from ahead took when it ran
	// ahead, by plugin, until the activation's event takes it (spentAhead).
	spent map[string]time.Duration
}

// aheadResult is what was computed ahead for one plugin.
type aheadResult struct {
	req        contrib.ActivationRequest
	compileErr error
	executed   bool // Activate ran ahead: inst, err and notes hold its outcome
	inst       contrib.Instance
	err        error
	notes      []contrib.Diagnostic // held while it executed (HoldNotes)
	took       time.Duration        // compile and execution ahead (a worker's start included)
}

// matches reports whether req asks for what r computed.
func (r *aheadResult) matches(req contrib.ActivationRequest) bool {
	return r.req.Bundle == req.Bundle && r.req.Entry == req.Entry && r.req.SourceRoot == req.SourceRoot
}

func (a *aheadActivator) result(plugin string) *aheadResult {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.done[plugin]
}

// Compile answers from a matching compile done ahead, else compiles.
func (a *aheadActivator) Compile(req contrib.ActivationRequest) error {
	if r := a.result(req.Plugin); r != nil && r.matches(req) {
		return r.compileErr
	}
	return a.Activator.Compile(req)
}

// Activate answers from a matching execution done ahead — delivering the
// notes it held, now that it is this plugin's turn — else activates.
func (a *aheadActivator) Activate(ctx context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	if r := a.take(req); r != nil {
		return r.answer(req)
	}
	return a.Activator.Activate(ctx, req)
}

// activateWithin is Activate where an execution that runs now has timeout
// and ends when ctx does. An answer from ahead needs no context, so none is
// made: on a start of many plugins that was a timer per plugin on the one
// goroutine that publishes them.
func (a *aheadActivator) activateWithin(ctx context.Context, req contrib.ActivationRequest, timeout time.Duration) (inst contrib.Instance, err error) {
	if r := a.take(req); r != nil {
		return r.answer(req)
	}
	withTimeout(ctx, timeout, func(actx context.Context) { inst, err = a.Activator.Activate(actx, req) })
	return inst, err
}

// withTimeout calls f with a context that ends after timeout or when ctx ends,
// whichever comes first, and not before f returns: an activation's own
// deadline, which a caller giving up still cuts short.
func withTimeout(ctx context.Context, timeout time.Duration, f func(context.Context)) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	stop := context.AfterFunc(ctx, cancel)
	f(actx)
	stop()
	cancel()
}

// take removes and returns the execution done ahead for req, or nil.
func (a *aheadActivator) take(req contrib.ActivationRequest) *aheadResult {
	a.mu.Lock()
	r := a.done[req.Plugin]
	if r != nil && r.executed && r.matches(req) && r.req.Generation == req.Generation {
		delete(a.done, req.Plugin)
		if a.spent == nil {
			a.spent = map[string]time.Duration{}
		}
		a.spent[req.Plugin] = r.took
	} else {
		r = nil
	}
	a.mu.Unlock()
	return r
}

// answer delivers the notes r held and returns its outcome.
func (r *aheadResult) answer(req contrib.ActivationRequest) (contrib.Instance, error) {
	for _, d := range r.notes {
		if req.Services != nil {
			req.Services.Note(d)
		}
	}
	return r.inst, r.err
}

// spentAhead returns, once, what plugin's activation answered from ahead
// took when it ran ahead: its event reports the whole activation.
func (a *aheadActivator) spentAhead(plugin string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	d := a.spent[plugin]
	delete(a.spent, plugin)
	return d
}

// run compiles req and, when execute is set and it compiled, executes it
// with its notes held; the outcome waits for activate.
func (a *aheadActivator) run(ctx context.Context, req contrib.ActivationRequest, execute bool, timeout time.Duration) {
	start := time.Now()
	r := &aheadResult{req: req, compileErr: a.Activator.Compile(req)}
	if execute && r.compileErr == nil {
		// The generation keeps its request: the hold must not reach r (and
		// so the generation's own set), or keeping it would pin it.
		held := &[]contrib.Diagnostic{}
		req.HoldNotes = func(d contrib.Diagnostic) { *held = append(*held, d) } // one goroutine
		withTimeout(ctx, timeout, func(actx context.Context) { r.inst, r.err = a.Activator.Activate(actx, req) })
		r.executed, r.notes = true, *held
	}
	r.took = time.Since(start)
	a.mu.Lock()
	if a.done == nil {
		a.done = map[string]*aheadResult{}
	}
	a.done[req.Plugin] = r
	a.mu.Unlock()
}

// forget drops what nobody asked for (the plugin ended blocked, or its
// turn never came): executed generations are closed, their held notes
// dropped — for callers they never ran.
func (a *aheadActivator) forget() {
	a.mu.Lock()
	done := a.done
	a.done = nil
	a.mu.Unlock()
	for _, r := range done {
		if r.inst != nil {
			r.inst.Close()
		}
	}
}

// Widener is implemented by activators whose activations mostly wait
// (plugins in worker processes, issue 26): Width is how many the manager
// prepares at once, when more than GOMAXPROCS.
type Widener interface{ Width() int }

// width is how many plugins prepare works on at once: GOMAXPROCS, or the
// activator's Width when wider.
func (m *Manager) width() int {
	w := runtime.GOMAXPROCS(0)
	if wd, ok := m.ahead().Activator.(Widener); ok {
		w = max(w, wd.Width())
	}
	return w
}

// prepare reserves, in dependency order, a generation id for every plugin
// of ps that may activate, then on all cores reads their bundles and, for
// those with no dependencies that preflight and admission let through (a
// blocked plugin never compiles, DC24), compiles and — when execute is set —
// executes them with their reserved generation. It returns the bundles by
// index (nil: activate reads the bundle and reports the error). Call
// finishPrepared after the activations. m.op is held.
func (m *Manager) prepare(ctx context.Context, ps []*plugin, execute bool) []*Bundle {
	for _, p := range ps {
		if m.mayActivate(p) {
			p.reserved = m.newGeneration()
		}
	}
	bundles := make([]*Bundle, len(ps))
	ahead := m.ahead()
	forEachWidth(m.width(), len(ps), func(i int) {
		p := ps[i]
		c := p.cand
		if !m.mayActivate(p) {
			return
		}
		b, err := readBundle(c.Dir, ManifestName, c.manifestData, c.listed, c.top)
		c.top = nil // read once: a later snapshot lists the directory again
		if err != nil {
			return
		}
		bundles[i] = b
		if len(c.Manifest.Dependencies) > 0 || len(m.preflight(p)) > 0 || len(m.admit(c, contentFP{c.Manifest, b})) > 0 {
			return
		}
		if execute {
			m.setState(p, activating) // DC24: being built, nothing published
		}
		ahead.run(ctx, m.request(p, b, p.reserved), execute, m.opts.ActivationTimeout)
	})
	return bundles
}

// mayActivate reports whether activate could get as far as running p.
func (m *Manager) mayActivate(p *plugin) bool {
	c := p.cand
	return c.Manifest != nil && !c.Shadowed && !p.teardown && len(p.blockers) == 0
}

// finishPrepared drops what prepare computed that no activation took, and
// the generation ids nobody used. m.op is held.
func (m *Manager) finishPrepared(ps []*plugin) {
	m.ahead().forget()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range ps {
		p.reserved = ""
		if p.state == activating && p.gen == nil {
			p.state = Stopped // every activate settles its plugin; this is a guard
		}
	}
}

// generationFor returns the generation id reserved for p's activation, or
// a new one. m.op is held.
func (m *Manager) generationFor(p *plugin) string {
	if g := p.reserved; g != "" {
		p.reserved = ""
		return g
	}
	return m.newGeneration()
}

// loadAll sets the display of cands and reads their manifests on all cores
// (discovery, AT4).
func loadAll(cands []*Candidate, display func(string) string) {
	forEach(len(cands), func(i int) {
		c := cands[i]
		c.Display = display(c.Dir)
		c.load()
	})
}
