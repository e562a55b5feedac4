package starhost

import (
	"github.com/crystal-star/crystal-star/contrib"
)

// DefaultWorkers is how many worker processes serve the plugins of process
// isolation when neither Options.Workers nor config.toml's workers set it
// (docs/isolation.md, "Workers and isolation groups").
const DefaultWorkers = 8

// workerCount is the number of workers the process activator uses: 0 for a
// worker per plugin. config.toml over Options over the default.
func (h *Host) workerCount() int {
	if w := h.Config().Workers; w != nil {
		return *w
	}
	switch n := h.opts.Workers; {
	case n < 0:
		return 0
	case n == 0:
		return DefaultWorkers
	default:
		return n
	}
}

// mergeWorkers applies one layer's workers key: how many worker
// processes share the plugins of process isolation (0: one each). More
// workers isolate more, so the workspace layer may raise the number or ask
// for a worker per plugin, never lower it.
func mergeWorkers(dst *Config, l *layer, workspace bool, note func(contrib.Diagnostic)) {
	if !l.md.IsDefined("workers") {
		return
	}
	n := l.cfg.Workers
	cur := DefaultWorkers
	if dst.Workers != nil {
		cur = *dst.Workers
	}
	switch {
	case n == nil || *n < 0:
		note(contrib.Diag(contrib.ConfigValueInvalid, "", l.pos("workers"),
			"workers: want 0 (a worker per plugin) or a positive number of worker processes; it is ignored"))
	case workspace && cur == 0 && *n != 0, workspace && *n != 0 && *n < cur:
		note(contrib.Diag(contrib.IsolationWeakened, "", l.pos("workers"),
			"workers = %d would put more plugins in each worker than the home setting and is ignored", *n))
	default:
		dst.Workers = n
	}
}

// workersUnstartable is Start's error when plugins were to run in process
// isolation and not one worker could start: every such plugin is faulted,
// and the cause (an exec failure, a worker that refused its memory limit,
// a binary that does not serve) is the same for all. The host is started
// nevertheless; its in-process plugins serve.
func (h *Host) workersUnstartable() error {
	if h.router == nil || h.router.remote == nil {
		return nil
	}
	if err := h.router.remote.Unstartable(); err != nil {
		return codeErrorf(Code(contrib.WorkerFailed), "no plugin worker could start, so every plugin in process isolation is faulted: %v", err)
	}
	return nil
}

// anyProcess reports whether any plugin may run in process isolation: the
// floor of Options, or config.toml globally or for one plugin.
func (h *Host) anyProcess() bool {
	if h.opts.Isolation == IsolationProcess {
		return true
	}
	c := h.Config()
	if c.Isolation == IsolationProcess {
		return true
	}
	for _, m := range c.PluginIsolation {
		if m == IsolationProcess {
			return true
		}
	}
	return false
}
