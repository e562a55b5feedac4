package lifecycle

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/crystal-star/crystal-star/contrib"
)

// Defaults for Options.
const (
	defaultCleanupTimeout    = 5 * time.Second
	defaultActivationTimeout = 30 * time.Second
)

// AdmitFunc decides whether a candidate with the given fingerprint may run.
// It returns the blockers; none means admitted. It is asked before any code
// runs and again just before publishing (AT1). fingerprint computes the
// content fingerprint (remembered by the snapshot): a decision that does
// not depend on it (a dev plugin) leaves it uncomputed.
type AdmitFunc func(c *Candidate, fingerprint func() string) []Blocker

// Event reports a lifecycle change to the embedder.
type Event struct {
	Plugin     string
	Kind       string // "activated", "reloaded", "faulted", "blocked", "stopped", "kept", "unchanged"
	Generation string
	State      State
	Elapsed    time.Duration
	Instance   contrib.Instance // the new generation, for "activated" and "reloaded"
	Previous   contrib.Instance // the retired generation, when one was
}

// Options configure a Manager. Activator and Registry are required.
type Options struct {
	Roots     []Root
	Activator contrib.Activator
	Registry  *contrib.Registry
	Services  contrib.Services
	Rules     contrib.Rules
	// Admit is the trust seam. Nil admits dev plugins and blocks installed
	// ones with PluginUntrusted.
	Admit AdmitFunc
	// DeclaredTools, when set, says which tool names a bundle declares,
	// without running it (the lifecycle knows no Starlark). When a
	// plugin's first activation fails, the registry remembers them
	// (contrib.Registry.RecordDeclared), so calls naming them hear why.
	DeclaredTools func(files map[string][]byte) []string
	// Disabled reports whether configuration disables a plugin id.
	Disabled          func(id string) bool
	HostVersion       string
	CleanupTimeout    time.Duration
	ActivationTimeout time.Duration
	// Display turns a plugin directory into the form used in positions. It
	// may be called from several goroutines at once.
	Display func(dir string) string
	// Events, when set, receives every lifecycle change. It is called with
	// no lock held, from the goroutine doing the operation.
	Events func(Event)
	// Validate, when set, admits a staged set's host-owned parts (status
	// fields, CC15) just before it is published; the diagnostics it returns
	// join the plugin's. It runs with the operation lock held.
	Validate func(plugin string, set *contrib.Set) []contrib.Diagnostic
	// BeforeAttach is called each time attach stages are about to run (the
	// host's environment is complete from then on, CC3). It may be nil.
	BeforeAttach func()
	// Attached is called after a generation's attach stages ran (the
	// embedder wires status sinks and the like there). It may be nil.
	Attached func(plugin string, inst contrib.Instance)
}

// Manager owns every plugin's lifecycle: discovery, admission, activation,
// publication, deactivation and reclaim. Operations are serialised; reads
// (Plugins, Stats) never wait for an operation. Safe for concurrent use.
type Manager struct {
	opts Options
	op   sync.Mutex // serialises operations (and so every transition)

	mu      sync.RWMutex       // guards the fields below
	plugins []*plugin          // load order
	byID    map[string]*plugin // the active-eligible plugin of each id (find)
	retired []*retiredGen
	pending sync.WaitGroup // teardowns past the cleanup timeout
	// faulting counts the faults reported and not yet recorded
	// (SettleFaults); settled is broadcast when it drops to zero.
	faulting int
	settled  *sync.Cond
	overdue  []string // generations that missed the cleanup timeout (Overdue)

	// Reclaim bookkeeping (reclaim.go).
	retiredPruned int           // len(retired) after the last prune
	batching      bool          // a bulk deactivation is running
	unstamped     []*retiredGen // torn down in this batch, cycles not read yet
	cycles        func() uint64 // reads the GC cycle counter; nil: the runtime's

	genSeq  atomic.Uint64
	closing atomic.Bool // Close has begun: nothing activates any more
}

type plugin struct {
	cand        *Candidate
	state       State
	gen         *generation
	blockers    []Blocker
	stopReason  *Blocker // why a stopped plugin is off (MC5); stopped.go
	diags       []contrib.Diagnostic
	fingerprint contentFP
	teardown    bool   // teardown pending (DC26)
	deferred    bool   // an activation waits for the teardown to finish
	stale       bool   // a provider was replaced: rebuild even if unchanged (DC13)
	reserved    string // generation id reserved for the next activation (parallel.go)
}

type generation struct {
	id      string
	inst    contrib.Instance
	pub     *contrib.Published
	bundle  *Bundle
	fp      contentFP
	exports map[string]any
	cand    *Candidate // the manifest and place this generation came from
	staged  bool       // its attach stages ran before publication (AT2)
}

type retiredGen struct {
	plugin, id string
	ref        weak.Pointer[contrib.Set]
	doneCycles uint64 // GC cycles when teardown finished; 0 while pending
}

// NewManager returns a manager; call Start to discover and activate.
func NewManager(opts Options) *Manager {
	if opts.CleanupTimeout <= 0 {
		opts.CleanupTimeout = defaultCleanupTimeout
	}
	if opts.ActivationTimeout <= 0 {
		opts.ActivationTimeout = defaultActivationTimeout
	}
	if opts.Display == nil {
		opts.Display = func(dir string) string { return dir }
	}
	if opts.Disabled == nil {
		opts.Disabled = func(string) bool { return false }
	}
	opts.Activator = &aheadActivator{Activator: opts.Activator}
	return &Manager{opts: opts}
}

// ahead returns the wrapper NewManager put around the activator
// (parallel.go).
func (m *Manager) ahead() *aheadActivator { return m.opts.Activator.(*aheadActivator) }

func (m *Manager) note(d contrib.Diagnostic) {
	if m.opts.Services != nil {
		m.opts.Services.Note(d)
	}
}

func (m *Manager) emit(e Event) {
	if m.opts.Events != nil {
		m.opts.Events(e)
	}
}

// Start discovers every root (AT4), activates the plugins in dependency and
// load order, and then runs the attach stages of each active plugin (CC3).
// A plugin that fails is reported in its projection and diagnostics, never
// as Start's error: Start returns an error only when ctx ended before the
// start finished, so some plugins were cancelled or never attempted.
func (m *Manager) Start(ctx context.Context) error {
	m.op.Lock()
	defer m.op.Unlock()
	cands := Discover(m.opts.Roots, m.opts.Display)
	ps := make([]*plugin, len(cands))
	for i, c := range cands {
		ps[i] = &plugin{cand: c, state: Stopped, diags: slices.Clone(c.Diagnostics), blockers: manifestBlockers(c)}
		if len(ps[i].blockers) > 0 {
			ps[i].state = Blocked
		}
		for _, d := range c.Diagnostics {
			m.note(d)
		}
	}
	m.setPlugins(ps)
	done := m.opts.Registry.Defer() // one view rebuild for the whole start
	order := m.dependencyOrder(ps)
	bundles := m.prepare(ctx, order, true) // on all cores (parallel.go)
	for i, p := range order {
		m.activate(ctx, p, bundles[i])
	}
	m.finishPrepared(order)
	done()
	m.attachAll(ctx, nil)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	return nil
}

// manifestBlockers turns an unusable manifest into preflight blockers
// (DC24: blocked, not attempted).
func manifestBlockers(c *Candidate) []Blocker {
	if c.Manifest != nil {
		return nil
	}
	var bs []Blocker
	for _, d := range c.Diagnostics {
		if d.Severity == contrib.SeverityError {
			bs = append(bs, Blocker{Code: d.Code, Message: d.Message, Remedy: "fix " + d.Pos.String() + " and reload"})
		}
	}
	return bs
}

// newGeneration returns an opaque, host-unique generation id.
func (m *Manager) newGeneration() string { return "g" + strconv.FormatUint(m.genSeq.Add(1), 10) }

func (m *Manager) setState(p *plugin, s State) {
	m.mu.Lock()
	p.state = s
	m.mu.Unlock()
}

// Plugins returns a projection of every discovered plugin, in load order.
func (m *Manager) Plugins() []Projection {
	m.mu.RLock()
	defer m.mu.RUnlock()
	view := m.opts.Registry.View()
	out := make([]Projection, 0, len(m.plugins))
	for _, p := range m.plugins {
		out = append(out, m.project(p, view))
	}
	return out
}

func (m *Manager) project(p *plugin, view *contrib.View) Projection {
	c := p.cand
	pr := Projection{ID: c.ID(), Directory: c.Display, Source: c.Source, State: p.state,
		Fingerprint: p.fingerprint.String(), Blockers: slices.Clone(p.blockers), Diagnostics: slices.Clone(p.diags),
		TeardownPending: p.teardown}
	if p.state == Stopped || p.state == Deactivating || p.state == Reclaiming {
		pr.StopReason = p.stopReason
	}
	if c.Manifest != nil {
		pr.Version = c.Manifest.Version
		en := c.Manifest.IsEnabled() && !m.opts.Disabled(c.Manifest.ID)
		pr.Enabled = &en
	}
	if p.gen != nil {
		pr.Generation = p.gen.id
		pr.DisplayName = c.Manifest.Name() // empty until loaded (CC19)
		pr.Diagnostics = append(pr.Diagnostics, view.Conflicts(c.ID())...)
	}
	if pr.State == Reclaiming && !m.stillReclaiming(c.ID()) {
		pr.State = Stopped
	}
	if pr.Blockers == nil {
		pr.Blockers = []Blocker{}
	}
	if pr.Diagnostics == nil {
		pr.Diagnostics = []contrib.Diagnostic{}
	}
	return pr
}

// stillReclaiming reports whether a retired generation of plugin is still
// in memory; m.mu is held.
func (m *Manager) stillReclaiming(plugin string) bool {
	for _, r := range m.retired {
		if r.plugin == plugin && r.ref.Value() != nil {
			return true
		}
	}
	return false
}

// Stats returns reclaim figures (DC27). It never forces a collection: a
// generation counts as leaked only once two collections have run since its
// teardown finished and it is still reachable.
func (m *Manager) Stats() Stats {
	cycles := m.gcCycles()
	m.mu.Lock()
	defer m.mu.Unlock()
	var s Stats
	live := m.retired[:0]
	for _, r := range m.retired {
		if r.ref.Value() == nil {
			continue
		}
		live = append(live, r)
		if r.doneCycles != 0 && cycles >= r.doneCycles+2 {
			s.LeakedGenerations++
		} else {
			s.Reclaiming++
		}
	}
	m.retired = live
	m.retiredPruned = len(live)
	s.RestartRecommended = s.LeakedGenerations > 0
	return s
}

// Generation returns the live generation id of plugin, or "".
func (m *Manager) Generation(id string) string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if p := m.byID[id]; p != nil && p.cand.ID() == id && !p.cand.Shadowed {
		// Indexed: constant time, as the host asks on every "stopped"
		// event (a scan would make Close quadratic).
		if p.gen == nil {
			return ""
		}
		return p.gen.id
	}
	for _, p := range m.plugins {
		if p.gen != nil && p.gen.pub.Plugin == id {
			return p.gen.id
		}
	}
	return ""
}

// setPlugins replaces the plugin list and its index by id. m.op is held.
func (m *Manager) setPlugins(ps []*plugin) {
	byID := make(map[string]*plugin, len(ps))
	for _, p := range ps {
		if id := p.cand.ID(); !p.cand.Shadowed && byID[id] == nil {
			byID[id] = p
		}
	}
	m.mu.Lock()
	m.plugins, m.byID = ps, byID
	m.mu.Unlock()
}

// find returns the plugin with id, or nil. m.mu must not be held. The index
// answers in constant time (dependency checks ask for every plugin, so a
// scan would make Start quadratic); a reload can change a plugin's id
// without rediscovery, so a miss or a stale entry falls back to the scan.
func (m *Manager) find(id string) *plugin {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if p := m.byID[id]; p != nil && p.cand.ID() == id && !p.cand.Shadowed {
		return p
	}
	for _, p := range m.plugins {
		if p.cand.ID() == id && !p.cand.Shadowed {
			return p
		}
	}
	return nil
}
