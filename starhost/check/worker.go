package check

import (
	"sync"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
	lworker "github.com/crystal-star/crystal-star/lifecycle/worker"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
)

// Workers is the worker process that runs the dry runs of Plugins. Plugins
// runs code from pull requests, so it never runs plugin code in its own
// process; one worker serves every dry run of a run, one plugin after
// another, instead of a process per plugin (which cost 30 times the rest
// of the check). It starts on the first dry run and again after a fault;
// a fault (memory_limit, the timeout, a crash) is reported for the plugin
// whose dry run caused it, and the next plugin gets a fresh worker.
//
// Plugins makes its own and ends it when it returns. A caller that checks
// again and again (Watch, the language server) passes one in
// Options.Workers to keep the worker between runs, and closes it when
// done. It is safe for concurrent use; dry runs are served one at a time.
type Workers struct {
	started func() // test hook: called when a worker process starts

	mu     sync.Mutex
	limits [2]int64 // memory limit and timeout the runner was made with
	runner *lworker.DryRunner
}

// NewWorkers returns workers for Plugins; none runs until the first dry
// run.
func NewWorkers() *Workers { return &Workers{} }

// Close ends the worker, if one runs. Plugins may use w again afterwards: it
// starts a new one.
func (w *Workers) Close() {
	w.mu.Lock()
	r := w.runner
	w.runner = nil
	w.mu.Unlock()
	if r != nil {
		r.Close()
	}
}

// dryRunner returns the runner for sandbox's memory limit and a dry-run
// timeout, replacing one made with other limits (config.toml changed
// between two runs).
func (w *Workers) dryRunner(host sandbox.Host, timeout time.Duration) *lworker.DryRunner {
	mem := host.MemoryLimit()
	w.mu.Lock()
	defer w.mu.Unlock()
	if key := [2]int64{mem, int64(timeout)}; w.runner == nil || key != w.limits {
		if w.runner != nil {
			w.runner.Close()
		}
		w.limits = key
		w.runner = host.Workers(timeout).DryRunner(w.started)
	}
	return w.runner
}

// request is the activation request of p's dry run; providers holds its
// satisfied dependencies (only their ids cross to the worker).
func (ck *runner) request(p *checkPlugin, providers map[string]map[string]any) contrib.ActivationRequest {
	c, mf := p.cand, p.cand.Manifest
	return contrib.ActivationRequest{
		Plugin: mf.ID, DisplayName: mf.Name(), Generation: "check", Source: c.Source,
		Bundle: lifecycle.NewBundle(p.files), Entry: mf.Entry, SourceRoot: c.Display,
		Capabilities: mf.Capabilities, Exports: mf.Exports, Providers: providers,
		Rules: contrib.Rules{BuiltinTools: ck.opts.BuiltinTools, BuiltinCommands: ck.opts.BuiltinCommands,
			HostPlaceholders: ck.opts.HostPlaceholders},
		Services: sandboxServices{},
	}
}

// isolationOnly reports a diagnostic about running in a worker rather than
// about the plugin's files: Plugins runs every plugin in one, whatever the
// configuration says.
func isolationOnly(d contrib.Diagnostic) bool { return d.Code == contrib.IsolationUnsupported }
