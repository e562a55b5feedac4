package check

import (
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
)

// lintResult is what the static checks and the style warnings found in
// one plugin.
type lintResult struct {
	static  Result
	style   []contrib.Diagnostic
	compile error // of the compile for trees (checkPlugin.trees)
}

// linter lints plugins on as many cores as there are while Plugins goes on:
// linting reads only a plugin's own trees and bytes, so plugins are
// independent. A plugin is added once its trees are final (after its dry
// run or compile); wait adds the rest and returns the results in the
// plugins' order.
type linter struct {
	plugins []*checkPlugin
	index   map[*checkPlugin]int
	queued  []bool
	out     []lintResult
	next    chan int
	wg      sync.WaitGroup
	done    bool
}

// startLint starts the lint goroutines for plugins; steps is the step
// budget of the compiles that only make trees (checkPlugin.trees).
func startLint(plugins []*checkPlugin, steps uint64) *linter {
	l := &linter{plugins: plugins, index: map[*checkPlugin]int{}, queued: make([]bool, len(plugins)),
		out: make([]lintResult, len(plugins)), next: make(chan int, len(plugins))}
	for i, p := range plugins {
		l.index[p] = i
	}
	for range min(runtime.GOMAXPROCS(0), len(plugins)) {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := range l.next {
				p := l.plugins[i]
				var err error
				if p.trees != nil {
					err = compileTrees(steps, p, *p.trees)
				}
				l.out[i] = lint(p)
				l.out[i].compile = err
			}
		}()
	}
	return l
}

// add queues p for linting, once.
func (l *linter) add(p *checkPlugin) {
	if i, ok := l.index[p]; ok && !l.queued[i] && !l.done {
		l.queued[i] = true
		l.next <- i
	}
}

// wait lints the plugins not added yet, waits for every result and
// returns them by plugin.
func (l *linter) wait() []lintResult {
	for _, p := range l.plugins {
		l.add(p)
	}
	l.stop()
	return l.out
}

// stop lints no more plugins and waits for the running lints. It may be
// called again.
func (l *linter) stop() {
	if !l.done {
		l.done = true
		close(l.next)
		l.wg.Wait()
	}
}

// lint runs the static checks (starhost/check) over p's bundle and the
// style warnings over each .star file, on the compiler's parse where there
// is one. The style warnings are buildifier's, registered by
// starhost/format (RegisterStyle): a program that does not import
// it links no buildifier and gets none.
func lint(p *checkPlugin) lintResult {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(p.files)) {
		if strings.HasSuffix(name, ".star") {
			names = append(names, name)
		}
	}
	files := map[string]*syntax.File{}
	for _, name := range names {
		f := p.parsed[name]
		if f == nil {
			var err error
			if f, err = builtins.Dialect.Parse(p.cand.Display+"/"+name, p.files[name], syntax.RetainComments); err != nil {
				continue // a syntax error: the compiler reports it when the file is loaded
			}
		}
		files[name] = f
	}
	caps := lifecycle.Capabilities // an unusable manifest: assume every capability
	if p.cand.Manifest != nil {
		caps = p.cand.Manifest.Capabilities
	}
	var res lintResult
	res.static = Run(Bundle{Plugin: p.cand.ID(), Files: files, Capabilities: caps})
	for _, name := range names {
		if f := files[name]; f != nil {
			res.style = append(res.style, Style(p.cand.ID(), p.cand.Display+"/"+name, f, p.files[name])...)
		}
	}
	return res
}

// applyLint records a plugin's lint findings, and the host's compile
// errors when the worker did not report its own. A dry-run failure at a
// constructor call the static checks found broken says nothing new and is
// dropped.
func (ck *runner) applyLint(p *checkPlugin, res lintResult) {
	if !p.compiled {
		ck.addFailure(p, res.compile) // the worker died before it could say
	}
	if broken := res.static.Broken; len(broken) > 0 {
		ck.diags = slices.DeleteFunc(ck.diags, func(d contrib.Diagnostic) bool {
			return d.Code == contrib.ExecutionFailed && d.Plugin == p.cand.ID() && slices.Contains(broken, d.Pos)
		})
	}
	ck.add(p, res.static.Diagnostics...)
	ck.add(p, res.style...)
	ck.placeSchemaErrors(p)
}
