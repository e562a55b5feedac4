package main

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/check"
)

// devChecks runs `crystal-star check` on a dev plugin each time it loads
// or reloads, and prints what check finds beyond what the load itself
// reported: the static findings a load cannot see until a callback runs
// (a wrong return type, a ctx field the callback lacks, a hook that
// cannot deny, a style warning). The load was the dry run, so the check
// is static (check.Options.Static): it runs no plugin code and starts no
// worker process. Checks run one at a time in the background; a plugin
// reloaded while its check runs is checked again, and a result for a
// generation that no longer serves is not printed (issue 29 point 2).
type devChecks struct {
	c    *console
	opts starhost.Options

	mu      sync.Mutex
	pending []string // plugin ids, in the order they loaded
	wake    chan struct{}

	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	started bool
	stopped sync.Once
}

func newDevChecks(c *console, opts starhost.Options) *devChecks {
	ctx, cancel := context.WithCancel(context.Background())
	return &devChecks{c: c, opts: opts, wake: make(chan struct{}, 1),
		ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// loaded queues plugin for a check; it may be called before start.
func (d *devChecks) loaded(plugin string) {
	d.mu.Lock()
	if !slices.Contains(d.pending, plugin) {
		d.pending = append(d.pending, plugin)
	}
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// start runs the queued checks, now and as plugins load, until stop.
func (d *devChecks) start() {
	d.started = true
	go func() {
		defer close(d.done)
		for {
			d.mu.Lock()
			var next string
			if len(d.pending) > 0 {
				next, d.pending = d.pending[0], d.pending[1:]
			}
			d.mu.Unlock()
			if next != "" {
				d.run(next)
				continue
			}
			select {
			case <-d.ctx.Done():
				return
			case <-d.wake:
			}
		}
	}()
}

// stop ends the checks and waits for them. It may be called again.
func (d *devChecks) stop() {
	d.stopped.Do(func() {
		d.cancel()
		if d.started {
			<-d.done
		}
	})
}

// run checks one plugin and prints its findings the load did not report.
func (d *devChecks) run(plugin string) {
	p, ok := d.plugin(plugin)
	if !ok || p.Source != starhost.SourceDev || p.Generation == "" || d.ctx.Err() != nil {
		return
	}
	opts := check.Options{Paths: []string{p.Directory}, Options: d.opts, Static: true}
	r, err := check.Plugins(d.ctx, opts)
	if err != nil || d.ctx.Err() != nil {
		return
	}
	if now, ok := d.plugin(plugin); !ok || now.Generation != p.Generation {
		return // a newer generation is queued for its own check
	}
	var news []starhost.Note
	for _, n := range r.Diagnostics {
		if n.Plugin == plugin && !slices.ContainsFunc(p.Diagnostics, func(m starhost.Note) bool {
			return m.Code == n.Code && m.Pos == n.Pos && m.Message == n.Message
		}) {
			news = append(news, n)
		}
	}
	if len(news) == 0 {
		return
	}
	errs, warns := 0, 0
	for _, n := range news {
		if n.Severity == starhost.SeverityError {
			errs++
		} else {
			warns++
		}
	}
	d.c.printf("check %s %s: %s, %s", plugin, p.Generation, countOf(errs, "error"), countOf(warns, "warning"))
	for _, n := range news {
		d.c.printDiag("  ", n)
	}
}

// plugin returns the host's view of plugin id.
func (d *devChecks) plugin(id string) (starhost.PluginInfo, bool) {
	for _, p := range d.c.h.Plugins() {
		if p.ID == id {
			return p, true
		}
	}
	return starhost.PluginInfo{}, false
}

func countOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
