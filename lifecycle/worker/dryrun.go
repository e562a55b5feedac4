package worker

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// DryRunner activates bundles one after another in one worker process and
// closes each at once: the dry runs of `crystal-star check`, which runs
// code from pull requests and so never runs it in the host, but would
// spend far more on starting a process per plugin than on the plugins.
//
// The worker starts on the first dry run, not before. A dry run that kills
// it (the memory limit, the callback timeout, a crash, garbage on the
// channel) fails with that cause, as Activate would, and the next dry run
// starts a fresh worker: a fault belongs to the plugin whose dry run
// caused it and to no other. A worker that grew past half its memory limit
// is replaced before the next dry run, so one plugin's leftovers never
// push another over the limit. DryRunner is safe for concurrent use; dry
// runs are served one at a time.
type DryRunner struct {
	a       *Activator
	started func() // called when a worker process starts (tests count them)

	mu sync.Mutex
	p  *process // nil until the first dry run and after a fault
}

// DryRunner returns a dry runner with a's options; started, when not nil,
// is called each time it starts a worker process. Close it to end its
// worker.
func (a *Activator) DryRunner(started func()) *DryRunner { return &DryRunner{a: a, started: started} }

// DryRun activates req's bundle (its providers' bundles first, in the same
// worker) and closes it again. The instance describes what the module
// staged and exported; its callbacks cannot be called (the generation is
// gone) and its Close does nothing.
func (d *DryRunner) DryRun(ctx context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	b, err := bundle(req, d.a.opts.Steps)
	if err != nil {
		return nil, d.a.failed(req, false, &Failure{Code: contrib.WorkerFailed, Message: "cannot read the bundle: " + err.Error()})
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.p != nil && (d.p.exited() || d.p.bloated()) {
		d.p.close()
		d.p = nil
	}
	if d.p == nil {
		if d.p, err = d.a.start(req); err != nil {
			return nil, d.a.failed(req, false, &Failure{Code: contrib.WorkerFailed, Message: "cannot start a worker: " + err.Error()})
		}
		if d.started != nil {
			d.started()
		}
	}
	p := d.p
	p.adopt(d.a.opts.Bridge(req, p.call), nil) // its notes and services; no generation to fault
	var out wire.Activated
	if err := p.call(ctx, "module", wire.MethodDryRun, b, &out); err != nil {
		var re *wire.RemoteError
		if !errors.As(err, &re) {
			// Killed, or abandoned mid-run: never reuse a worker in an
			// unknown state.
			p.close()
			d.p = nil
		}
		return nil, d.a.failed(req, false, asFailure(err))
	}
	if out.Failed {
		if slices.ContainsFunc(out.Diagnostics, func(d contrib.Diagnostic) bool { return d.Code == contrib.ResourceExhausted }) {
			// A run stopped at its memory budget leaves a heap the Go
			// runtime returns to the system only later; the next plugin
			// must not be killed for it (the watchdog's reading lags).
			p.close()
			d.p = nil
		}
		return nil, &contrib.ActivationError{Compile: out.Compile, Diagnostics: own(req.Plugin, out.Diagnostics)}
	}
	return dryInstance{newInstance(p, p.call, req, b, out)}, nil
}

// Close ends the worker, if one runs. The runner can be used again: the
// next dry run starts a new one.
func (d *DryRunner) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.p != nil {
		d.p.close()
		d.p = nil
	}
}

// dryInstance is a dry run's result: the worker that produced it serves
// the next dry run, so closing it must not end the worker.
type dryInstance struct{ *instance }

func (dryInstance) Close() {}

// exited reports whether the worker has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// bloated reports whether the worker's resident size passed half its
// memory limit when the watchdog last looked (a reading of /proc per dry
// run would cost more than a small plugin's dry run).
func (p *process) bloated() bool {
	return p.limit > 0 && p.rss.Load() > p.limit/2
}
