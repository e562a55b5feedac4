package worker

import (
	"cmp"
	"context"

	"errors"

	"io/fs"
	"maps"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// Bridge answers one generation's callbacks from its worker with the host's
// services (builtins/worker.HostSide). Notify's ctx carries the values of
// the host's call a notification was sent within (wire.Notifier). Close
// ends what the generation holds in the host (its status sink).
type Bridge interface {
	Handle(ctx context.Context, method string, body []byte) (any, error)
	Notify(ctx context.Context, method string, body []byte)
	Close()
}

// Caller calls the worker under the callback timeout; what names the
// callback in a timeout's message. A dead worker's calls fail with its
// *Failure.
type Caller func(ctx context.Context, what, method string, in, out any) error

// DefaultWatchInterval is how often the watchdog reads a worker's resident
// size.
const DefaultWatchInterval = 100 * time.Millisecond

// Options configure the process activator.
type Options struct {
	// Command returns the command that starts a worker; its environment
	// is extended with the worker variables. nil re-executes this binary
	// (os.Executable) with the host's environment.
	Command func() (*exec.Cmd, error)
	// Bridge returns the host side of one generation's services; call
	// calls the worker (entries it added at run time). Required.
	Bridge func(req contrib.ActivationRequest, call Caller) Bridge
	// MemoryLimit is each worker's memory limit in bytes (0: none).
	MemoryLimit int64
	// CallbackTimeout bounds each call into a worker, the module's top level
	// included (0: none).
	CallbackTimeout time.Duration
	// Steps is the Starlark step budget the worker applies (0: its default).
	Steps uint64
	// WatchInterval is the watchdog's period (DefaultWatchInterval).
	WatchInterval time.Duration
	// Workers is how many worker processes serve the plugins: each plugin
	// is assigned, when first seen, to the one with the fewest plugins,
	// and all its generations run there; a worker's plugins are its
	// isolation group. 0: a worker per plugin.
	Workers int
	// Note receives the notes that concern every worker, not a plugin
	// (an inherited hard memory limit that clamps them), once each.
	Note func(contrib.Diagnostic)
}

// Activator runs each generation in its own worker process. It is safe for
// concurrent use.
type Activator struct {
	opts Options

	mu       sync.Mutex
	kept     map[string]keptWorker // by plugin: the worker of the last Compile
	homes    map[string]*home      // by plugin: the worker its generations run in
	pool     []*home               // Workers > 0: the workers, by index
	assigned []int                 // plugins assigned to each of pool

	starts    atomic.Int64 // worker processes launched
	healthy   atomic.Int64 // workers that answered the handshake ready to serve
	firstFail atomic.Pointer[Failure]
	clamped   sync.Once
}

type keptWorker struct {
	p      *process
	h      *home
	slot   uint64
	bundle any
	files  map[string][]byte
}

// home is where a plugin's generations run: one worker process, started
// on demand, ended when it serves no generation.
type home struct {
	mu sync.Mutex
	p  *process
}

var _ contrib.Activator = (*Activator)(nil)

// New returns a process activator.
func New(opts Options) *Activator {
	if opts.Command == nil {
		opts.Command = selfCommand
	}
	a := &Activator{opts: opts, kept: map[string]keptWorker{}, homes: map[string]*home{}}
	for range max(opts.Workers, 0) {
		a.pool = append(a.pool, &home{})
		a.assigned = append(a.assigned, 0)
	}
	return a
}

// homeOf returns plugin's home: its own (Workers 0), else the pool's
// worker with the fewest plugins when the plugin is first seen.
func (a *Activator) homeOf(plugin string) *home {
	a.mu.Lock()
	defer a.mu.Unlock()
	if h, ok := a.homes[plugin]; ok {
		return h
	}
	h := &home{}
	if len(a.pool) > 0 {
		i := 0
		for j, n := range a.assigned {
			if n < a.assigned[i] {
				i = j
			}
		}
		a.assigned[i]++
		h = a.pool[i]
	}
	a.homes[plugin] = h
	return h
}

// acquire opens a slot for req's generation in its plugin's worker,
// starting the worker when none runs.
func (a *Activator) acquire(req contrib.ActivationRequest) (*home, *process, uint64, error) {
	h := a.homeOf(req.Plugin)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.p == nil || h.p.exited() {
		p, err := a.start(req)
		if err != nil {
			return nil, nil, 0, err
		}
		h.p = p
	}
	return h, h.p, h.p.open(a, req), nil
}

// release ends slot n of p; a worker left serving no generation is ended.
func (a *Activator) release(h *home, p *process, n uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.drop(n) > 0 {
		return
	}
	if h.p == p {
		h.p = nil
	}
	p.close()
}

// hello takes a worker's handshake: a worker that clamped its memory limit
// to an inherited hard one says so, once for all workers.
func (a *Activator) hello(h *wire.Hello) {
	if h.Failed == "" {
		a.healthy.Add(1)
	}
	if h.Clamped != "" && a.opts.Note != nil {
		a.clamped.Do(func() {
			a.opts.Note(contrib.Diag(contrib.MemoryLimitClamped, "", contrib.Pos{}, "%s", h.Clamped))
		})
	}
}

// startFailed records the cause of a worker that could not start or died
// before it could serve.
func (a *Activator) startFailed(f *Failure) { a.firstFail.CompareAndSwap(nil, f) }

// Unstartable returns why no worker could start, when at least one was
// tried and none answered ready to serve; nil otherwise.
func (a *Activator) Unstartable() error {
	if a.starts.Load() == 0 || a.healthy.Load() > 0 {
		return nil
	}
	if f := a.firstFail.Load(); f != nil {
		return f
	}
	return &Failure{Code: contrib.WorkerFailed, Message: "no worker answered"}
}

// selfCommand re-executes this binary with a minimal environment.
func selfCommand() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = workerEnv(os.Environ())
	return cmd, nil
}

// workerEnv keeps of the host's environment what the Go runtime reads
// (GOMAXPROCS, GODEBUG, GOGC, GORACE, GOCOVERDIR, ...), TMPDIR and
// wire.EnvProfile: the
// credentials an agent host keeps in its environment (API keys) never
// enter a process that runs plugin code.
func workerEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "GO") || strings.HasPrefix(kv, "TMPDIR=") || strings.HasPrefix(kv, wire.EnvProfile+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// Compile starts a worker, hands it the bundle and has it compile without
// running anything (AT3). The worker is kept for the Activate that follows.
func (a *Activator) Compile(req contrib.ActivationRequest) error {
	b, err := bundle(req, a.opts.Steps)
	if err != nil {
		return a.failed(req, true, &Failure{Code: contrib.WorkerFailed, Message: "cannot read the bundle: " + err.Error()})
	}
	h, p, n, err := a.acquire(req)
	if err != nil {
		return a.failed(req, true, &Failure{Code: contrib.WorkerFailed, Message: "cannot start a worker: " + err.Error()})
	}
	var out wire.Activated
	if err := p.caller(n)(context.Background(), "compile", wire.MethodCompile, withoutDeps(b), &out); err != nil {
		a.release(h, p, n)
		return a.failed(req, true, asFailure(err))
	}
	if out.Failed {
		a.release(h, p, n)
		return &contrib.ActivationError{Compile: true, Diagnostics: own(req.Plugin, out.Diagnostics)}
	}
	a.keep(req.Plugin, keptWorker{p: p, h: h, slot: n, bundle: req.Bundle, files: b.Files})
	return nil
}

func (a *Activator) keep(plugin string, k keptWorker) {
	a.mu.Lock()
	old, had := a.kept[plugin]
	a.kept[plugin] = k
	a.mu.Unlock()
	if had {
		a.release(old.h, old.p, old.slot)
	}
}

// Activate executes the module in a worker: the one Compile prepared for
// this snapshot, or a fresh one.
func (a *Activator) Activate(ctx context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	a.mu.Lock()
	k, ok := a.kept[req.Plugin]
	delete(a.kept, req.Plugin)
	a.mu.Unlock()
	b, err := bundle(req, a.opts.Steps)
	if err != nil {
		return nil, a.failed(req, false, &Failure{Code: contrib.WorkerFailed, Message: "cannot read the bundle: " + err.Error()})
	}
	h, p, n := k.h, k.p, k.slot
	if ok && sameSnapshot(k.bundle, req.Bundle) && !p.exited() {
		b.Files = nil // the worker has them from Compile
	} else {
		if ok {
			a.release(k.h, k.p, k.slot)
		}
		if h, p, n, err = a.acquire(req); err != nil {
			return nil, a.failed(req, false, &Failure{Code: contrib.WorkerFailed, Message: "cannot start a worker: " + err.Error()})
		}
	}
	call := p.caller(n)
	br := a.opts.Bridge(req, call)
	p.set(n, br, nil)
	var out wire.Activated
	if err := call(ctx, "module", wire.MethodActivate, b, &out); err != nil {
		a.release(h, p, n)
		return nil, a.failed(req, false, asFailure(err))
	}
	if out.Failed {
		a.release(h, p, n)
		return nil, &contrib.ActivationError{Compile: out.Compile, Diagnostics: own(req.Plugin, out.Diagnostics)}
	}
	p.set(n, br, req.Fault)
	files := b.Files
	if files == nil {
		files = k.files
	}
	b.Files = files
	inst := newInstance(p, call, req, b, out)
	var once sync.Once
	inst.release = func() { once.Do(func() { a.release(h, p, n) }) }
	return inst, nil
}

// failed is the activation error of a worker that failed.
func (a *Activator) failed(req contrib.ActivationRequest, compile bool, f *Failure) error {
	return &contrib.ActivationError{Compile: compile, Diagnostics: []contrib.Diagnostic{
		contrib.Diag(f.Code, req.Plugin, contrib.Pos{}, "%s", f.Message)}}
}

// asFailure turns a call's error into a Failure (a cancelled activation, a
// refused request).
func asFailure(err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	return &Failure{Code: contrib.WorkerFailed, Message: err.Error()}
}

// bundle is req as it crosses the channel.
func bundle(req contrib.ActivationRequest, steps uint64) (wire.Bundle, error) {
	b := wire.Bundle{Plugin: req.Plugin, DisplayName: req.DisplayName, Generation: req.Generation, Source: req.Source,
		Entry: req.Entry, SourceRoot: req.SourceRoot, Directory: req.Directory, Capabilities: req.Capabilities,
		Exports: req.Exports, Rules: req.Rules, Steps: cmp.Or(req.Steps, steps)}
	if req.Services != nil {
		b.Facts = req.Services.Facts()
	}
	for _, dep := range slices.Sorted(maps.Keys(req.Providers)) {
		b.Dependencies = append(b.Dependencies, dep)
		for _, v := range req.Providers[dep] {
			if e, ok := v.(*Export); ok {
				b.Deps = appendDeps(b.Deps, e.bundle)
				break
			}
		}
	}
	files, err := snapshotFiles(req.Bundle)
	b.Files = files
	return b, err
}

// snapshotFiles reads every file of the snapshot.
func snapshotFiles(fsys fs.FS) (map[string][]byte, error) {
	if f, ok := fsys.(interface{ Files() map[string][]byte }); ok {
		return f.Files(), nil
	}
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		files[path] = data
		return err
	})
	return files, err
}

// failureError turns a call's error into a diagnostic error of plugin.
func failureError(plugin string, err error) error {
	f := asFailure(err)
	return &wire.DiagError{D: contrib.Diag(f.Code, plugin, contrib.Pos{}, "%s", f.Message)}
}

// Close ends the workers that compiled a bundle but were never activated.
// Instances own their workers and end them on their own Close.
func (a *Activator) Close() {
	a.mu.Lock()
	kept := a.kept
	a.kept = map[string]keptWorker{}
	a.mu.Unlock()
	for _, k := range kept {
		a.release(k.h, k.p, k.slot)
	}
}

// sameSnapshot reports whether two bundles are the same snapshot value
// (by identity for the lifecycle's *Bundle; never for an uncomparable FS).
func sameSnapshot(a, b any) bool {
	ta := reflect.TypeOf(a)
	return ta != nil && ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}

// Export is a service of a plugin that runs in a worker, as the lifecycle
// hands it to the plugin's dependents (DC13). Services are Starlark values
// that cannot leave the worker, so the value is the provider's bundle: a
// dependent that runs in a worker activates the provider there first, and
// its deps.require sees the real services. A dependent in the host process
// cannot use it and says so.
type Export struct {
	Plugin, Service string
	bundle          wire.Bundle
}

// appendDeps appends b's own dependencies and then b to deps, each plugin
// once, so every bundle comes after those it depends on.
func appendDeps(deps []wire.Bundle, b wire.Bundle) []wire.Bundle {
	for _, d := range b.Deps {
		deps = appendDeps(deps, d)
	}
	for _, d := range deps {
		if d.Plugin == b.Plugin {
			return deps
		}
	}
	return append(deps, withoutDeps(b))
}

// withoutDeps is b without the bundles of its dependencies.
func withoutDeps(b wire.Bundle) wire.Bundle {
	b.Deps = nil
	return b
}

// own marks diagnostics a worker reported as its plugin's: a worker speaks
// for its own plugin only.
func own(plugin string, ds []contrib.Diagnostic) []contrib.Diagnostic {
	for i := range ds {
		ds[i].Plugin = plugin
	}
	return ds
}
