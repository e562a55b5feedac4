package starhost

import (
	"context"
	"os/exec"
	"sync"
	"time"

	"github.com/crystal-star/crystal-star/builtins"
	bworker "github.com/crystal-star/crystal-star/builtins/worker"
	"github.com/crystal-star/crystal-star/contrib"
	lworker "github.com/crystal-star/crystal-star/lifecycle/worker"
)

// The isolation modes (docs/isolation.md).
const (
	// IsolationInProcess runs plugin code in the host process: the fast
	// path and the default. Step budgets and cancellation hold; memory and
	// time spent inside one builtin are not bounded by the OS.
	IsolationInProcess = "in_process"
	// IsolationProcess runs each plugin generation in a worker subprocess
	// under an OS memory limit, a watchdog and a per-callback wall-clock
	// limit; a worker that overruns is killed and only its plugin faults.
	IsolationProcess = "process"
)

// DefaultWorkerMemoryLimit is a worker's memory limit when neither the
// options nor config.toml set one.
const DefaultWorkerMemoryLimit = 512 << 20

// DefaultCallbackTimeout is the wall-clock limit of one run — a module's
// top level or one callback, in process and in a worker alike — when
// neither Options.CallbackTimeout nor config.toml's callback_timeout sets
// one.
const DefaultCallbackTimeout = 30 * time.Second

// DefaultStepBudget is the Starlark step budget of one run (Options.Steps)
// when neither the options nor config.toml's step_budget set one: about a
// second of plain Starlark.
const DefaultStepBudget = 100_000_000

// DefaultMemoryLimit is the in-process heap budget (Options.MemoryLimit)
// when neither the options nor config.toml's memory_limit set one.
const DefaultMemoryLimit = 512 << 20

// ServeWorkerIfChild turns this process into a plugin worker when the host
// started it as one, and then never returns; otherwise it returns at once.
// An embedder calls it first thing in main, before flags or any other
// work, because process isolation re-executes the embedder's own binary
// (os.Executable) as the worker — the same pattern as go-plugin's Serve.
// Tests that start hosts in process mode call it first in TestMain.
func ServeWorkerIfChild() {
	if bworker.IsChild() {
		bworker.Main()
	}
}

// isolationRouter sends each plugin to the in-process or the process
// activator, by the isolation configured for it when it compiles; the
// Activate that follows goes to the same one.
type isolationRouter struct {
	local  contrib.Activator
	remote *lworker.Activator
	mode   func(plugin string) string
	steps  func(plugin string) uint64 // config.toml's step_budget for the plugin
	// processing reports whether any plugin may run in process
	// isolation; workers is the pool's size (0: one per plugin).
	processing func() bool
	workers    int

	mu     sync.Mutex
	chosen map[string]contrib.Activator
	// routed sends a generation's remote tools to executors
	// (remotetools.go).
	routed func(context.Context, contrib.ActivationRequest, contrib.Instance) contrib.Instance
}

func (r *isolationRouter) pick(plugin string, compile bool) contrib.Activator {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.chosen[plugin]; ok && !compile {
		return a
	}
	a := r.local
	if r.mode(plugin) == IsolationProcess {
		a = r.remote
	}
	r.chosen[plugin] = a
	return a
}

// Width lets the lifecycle prepare more plugins at once than there are
// cores when plugins run in workers, where an activation mostly waits for
// its worker (issue 26): twice the workers of the pool, at least 8.
func (r *isolationRouter) Width() int {
	if r.processing == nil || !r.processing() {
		return 0
	}
	return max(2*r.workers, 8)
}

func (r *isolationRouter) Compile(req contrib.ActivationRequest) error {
	return r.pick(req.Plugin, true).Compile(r.budget(req))
}

func (r *isolationRouter) Activate(ctx context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	inst, err := r.pick(req.Plugin, false).Activate(ctx, r.budget(req))
	if err == nil && r.routed != nil {
		inst = r.routed(ctx, req, inst)
	}
	return inst, err
}

// budget gives req the plugin's step budget as configured now, so a
// reload runs under the current config.toml, in the host process or in
// its worker (the budget travels in the bundle).
func (r *isolationRouter) budget(req contrib.ActivationRequest) contrib.ActivationRequest {
	if r.steps != nil && req.Steps == 0 {
		req.Steps = r.steps(req.Plugin)
	}
	return req
}

// processActivator returns the activator of process mode with the host's
// limits.
func (h *Host) processActivator() *lworker.Activator {
	_, timeout := h.limits()
	return h.workers(timeout)
}

// workers returns a process activator with the host's memory limit and
// timeout as the limit of each callback.
func (h *Host) workers(timeout time.Duration) *lworker.Activator {
	mem, _ := h.limits()
	return lworker.New(lworker.Options{
		Command: testWorkerCommand,
		Bridge: func(req contrib.ActivationRequest, call lworker.Caller) lworker.Bridge {
			return bworker.NewHostSide(req, call)
		},
		MemoryLimit:     mem,
		CallbackTimeout: timeout,
		Steps:           h.opts.Steps,
		Workers:         h.workerCount(),
		Note:            h.note,
	})
}

// testWorkerCommand, when set by a test of this package, starts workers
// instead of re-executing the test binary.
var testWorkerCommand func() (*exec.Cmd, error)

// limits returns the worker memory limit and callback timeout: config.toml
// over Options over the defaults.
func (h *Host) limits() (int64, time.Duration) {
	l := h.Config().Limits // Options, then config.toml (limits.go)
	mem, timeout := l.MemoryLimit, l.CallbackTimeout
	if mem <= 0 {
		mem = DefaultWorkerMemoryLimit
	}
	if timeout <= 0 {
		timeout = DefaultCallbackTimeout
	}
	return mem, timeout
}

// Isolation returns the isolation mode plugin id runs in. Options.Isolation
// set to process is a floor no config weakens; otherwise the plugin's own
// setting in config.toml decides, else the global one, else in_process.
func (h *Host) Isolation(id string) string {
	if h.opts.Isolation == IsolationProcess {
		return IsolationProcess
	}
	c := h.Config()
	if m, ok := c.PluginIsolation[id]; ok {
		return m
	}
	if c.Isolation != "" {
		return c.Isolation
	}
	return IsolationInProcess
}

// localActivator is the in-process Starlark activator.
func (h *Host) localActivator() contrib.Activator {
	return builtins.NewActivator(builtins.Options{Steps: h.opts.Steps, Limits: func() (int64, time.Duration) {
		l := h.Config().Limits // as last read: a reload runs under the current config
		return l.MemoryLimit, l.CallbackTimeout
	}})
}
