package lifecycle

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/crystal-star/crystal-star/contrib"
)

// Start and Rescan do the work that has no effects — reading manifests and
// bundles, and compiling the bundles of independent plugins — on all cores
// before the activations themselves run one after another in dependency
// order. The sequential part keeps every outcome that users see as it was:
// the order of notes and events, generation ids, status-field admission
// (first in load order wins) and the dependency checks against providers'
// states. See docs/performance.md.

// forEach calls f(i) for every i in [0, n) on up to GOMAXPROCS goroutines
// and returns when all calls have returned. f must be safe for concurrent
// use.
func forEach(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
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

// precompiler wraps the manager's activator: a Compile done ahead of time,
// in parallel, answers the Compile that activate asks for the same bundle
// snapshot later (the activator keeps the compiled programs for the
// Activate that follows, so nothing is compiled twice). Safe for
// concurrent use.
type precompiler struct {
	contrib.Activator
	mu   sync.Mutex
	done map[string]precompiled // by plugin id
}

type precompiled struct {
	req contrib.ActivationRequest
	err error
}

// Compile answers from a matching compile done ahead, else compiles.
func (a *precompiler) Compile(req contrib.ActivationRequest) error {
	a.mu.Lock()
	pc, ok := a.done[req.Plugin]
	delete(a.done, req.Plugin)
	a.mu.Unlock()
	if ok && pc.req.Bundle == req.Bundle && pc.req.Entry == req.Entry && pc.req.SourceRoot == req.SourceRoot {
		return pc.err
	}
	return a.Activator.Compile(req)
}

// ahead compiles req now and keeps the outcome for the matching Compile.
func (a *precompiler) ahead(req contrib.ActivationRequest) {
	err := a.Activator.Compile(req)
	a.mu.Lock()
	if a.done == nil {
		a.done = map[string]precompiled{}
	}
	a.done[req.Plugin] = precompiled{req: req, err: err}
	a.mu.Unlock()
}

// forget drops compiles nobody asked for (their plugin ended blocked).
func (a *precompiler) forget() {
	a.mu.Lock()
	a.done = nil
	a.mu.Unlock()
}

// prepare reads the bundle of every plugin in ps that may activate, on all
// cores, and compiles ahead the bundles of those with no dependencies that
// preflight and admission would let through (a blocked plugin is never
// compiled, DC24). It returns the bundles by index (nil: activate reads the
// bundle and reports the error). m.op is held; nothing here has an effect a
// caller can see.
func (m *Manager) prepare(ps []*plugin) []*Bundle {
	bundles := make([]*Bundle, len(ps))
	pc := m.precompiler()
	forEach(len(ps), func(i int) {
		p := ps[i]
		c := p.cand
		if c.Manifest == nil || c.Shadowed || p.teardown || len(p.blockers) > 0 {
			return
		}
		b, err := readBundle(c.Dir, ManifestName, c.manifestData)
		if err != nil {
			return
		}
		bundles[i] = b
		if len(c.Manifest.Dependencies) > 0 || len(m.preflight(p)) > 0 || len(m.admit(c, Fingerprint(c.Manifest, b))) > 0 {
			return
		}
		pc.ahead(m.request(p, b, ""))
	})
	return bundles
}

// loadAll reads the manifests of cands on all cores (discovery, AT4).
func loadAll(cands []*Candidate) {
	forEach(len(cands), func(i int) { cands[i].load() })
}
