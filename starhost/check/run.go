package check

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
	lworker "github.com/crystal-star/crystal-star/lifecycle/worker"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
)

// DefaultTimeout bounds the dry run of one plugin's module in Plugins.
const DefaultTimeout = 10 * time.Second

// Options configure Plugins. The embedded starhost.Options are read as a host
// would read them — the plugin roots (Workspace, Home, Dev, Builtin, and
// the `plugins` switch of config.toml), the names the embedder owns, Steps,
// HostVersion and Display — but Notes is never called and no trust file is
// read. The zero value checks every plugin a host with zero Options would
// discover.
type Options struct {
	starhost.Options
	// Paths, when set, are the only plugins checked: each is a plugin
	// directory or a directory of them, in load order as given. Cross-plugin
	// rules (names taken, dependencies) apply among them.
	Paths []string
	// Timeout bounds each plugin's dry run (DefaultTimeout).
	Timeout time.Duration
	// Static, when set, runs no plugin code and starts no worker: each
	// plugin is compiled and gets the static checks and style warnings,
	// but no dry run, so what only a dry run finds (the entries the host
	// would leave out, name conflicts between plugins) is not reported.
	// The dev console uses it after a load, which reported those itself.
	Static bool
	// Workers, when set, runs the dry runs and keeps its worker process
	// for the next run (Watch, an editor's language server); the
	// caller closes it. When nil, Plugins starts a worker on its first dry
	// run and ends it before it returns.
	Workers *Workers
}

// Plugin is one plugin directory Plugins looked at.
type Plugin struct {
	ID        string // the manifest id, or the directory name
	Directory string // as shown in positions
}

// Report is what Plugins found.
type Report struct {
	// Plugins lists every plugin checked, in load order.
	Plugins []Plugin
	// Diagnostics are the errors and warnings, sorted by file, line,
	// column and code. Each has a file, line and column and a plugin id.
	Diagnostics []starhost.Note
}

// Count returns the number of diagnostics of severity s.
func (r *Report) Count(s starhost.Severity) int {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Severity == s {
			n++
		}
	}
	return n
}

// Summary returns the report's one-line summary, such as
// "3 errors, 1 warning in 2 plugins".
func (r *Report) Summary() string {
	return fmt.Sprintf("%s, %s in %s", plural(r.Count(starhost.SeverityError), "error"),
		plural(r.Count(starhost.SeverityWarning), "warning"), plural(len(r.Plugins), "plugin"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Line formats d the way `crystal-star check` prints it, the one shape
// of every diagnostic, which editors and CI annotators read:
// `file:line:col: severity: plugin: message [Code]` (starhost.Note.String).
func Line(d starhost.Note) string { return d.String() }

// Plugins finds every mistake in plugins that can be found before they run,
// without trust and without effects, and reports it with its place (AT3,
// AT4). For each plugin it reports the manifest's problems; the compile
// errors of its Starlark (syntax, resolve against the real predeclared
// names, load); the result of a dry run of its module in a sandbox — every
// contribution the host would leave out, each at its constructor call; the
// admission rules that need no trust (host version, dependencies, cycles,
// export clashes); the conflicts with plugins earlier in load order (tool,
// placeholder and status-field names); and the curated style warnings of
// builtins' style warnings.
//
// The sandbox is a worker process (Workers: one serves every plugin
// of the run, and a fault ends only the dry run that caused it, as that
// plugin's finding). It runs only each module's top level, with a step
// budget, memory_limit and Timeout, neutral services (empty facts, notes dropped) and no callback
// ever called and no plugin timer started: no data is written, no model is
// called, nothing is published outside Plugins. A plugin whose dependencies are unsatisfied is
// compiled but not run, as the host would block it.
//
// A `# crystal-star: disable=Code[,Code...]` comment on the line of a
// diagnostic's position suppresses it. Notes (severity note) are not
// reported. The error is non-nil only when a path cannot be read or ctx
// ends.
func Plugins(ctx context.Context, opts Options) (*Report, error) {
	if opts.Display == nil {
		opts.Display = cwdRelative
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	opts.Notes = nil                        // the sandbox reports through the Report only
	host, err := starhost.New(opts.Options) // never started: its roots, names and status board
	if err != nil {
		return nil, err
	}
	sb := sandbox.Of(host)
	roots := sb.Roots()
	if len(opts.Paths) > 0 {
		roots = nil
		for _, p := range opts.Paths {
			if st, err := os.Stat(p); err != nil {
				return nil, sandbox.Errorf(starhost.ErrInvalidOptions, "check.Options.Paths: %w", err)
			} else if !st.IsDir() {
				return nil, sandbox.Errorf(starhost.ErrInvalidOptions, "check.Options.Paths: %s is not a directory", p)
			}
			roots = append(roots, lifecycle.Root{Dir: p, Source: contrib.SourceDev})
		}
	}
	workers := opts.Workers
	if workers == nil {
		workers = NewWorkers()
		defer workers.Close()
	}
	ck := &runner{
		opts:     opts,
		host:     sb,
		worker:   workers.dryRunner(sb, opts.Timeout), // the timeout ends a dry run as CallbackTimeout
		registry: contrib.NewRegistry(contrib.RegistryOptions{}),
		byCand:   map[*lifecycle.Candidate]*checkPlugin{},
		byID:     map[string]*checkPlugin{},
	}
	return ck.run(ctx, lifecycle.Discover(roots, opts.Display))
}

// cwdRelative shows a directory relative to the current directory, with
// ".." when it is outside (editors resolve positions from there).
func cwdRelative(dir string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, dir); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(dir)
}

// runner is one run of Plugins.
type runner struct {
	opts      Options
	host      sandbox.Host       // the unstarted host: roots, trust, status fields, workers
	worker    *lworker.DryRunner // dry runs, one after another in a worker process (check_worker.go)
	registry  *contrib.Registry
	plugins   []*checkPlugin // load order
	byCand    map[*lifecycle.Candidate]*checkPlugin
	byID      map[string]*checkPlugin
	published []*checkPlugin
	diags     []contrib.Diagnostic
}

// checkPlugin is one candidate as the runner sees it.
type checkPlugin struct {
	cand    *lifecycle.Candidate
	files   map[string][]byte // the bundle snapshot; nil when unreadable
	failed  bool              // the host would not make it active
	exports map[string]any    // after a successful dry run (DC13)
	lines   map[string][]string
	parsed  map[string]*syntax.File // by bundle path, from the compiler
	// trees, when set, is compiled by the linter for the trees only: the
	// plugin's dry run compiles and reports in the worker meanwhile.
	trees *contrib.ActivationRequest
	// compiled is set when the worker compiled the bundle and reported
	// the outcome; otherwise (it died first, or could not start) the
	// compile errors are the host's (applyLint).
	compiled bool
}

func (ck *runner) run(ctx context.Context, cands []*lifecycle.Candidate) (*Report, error) {
	report := &Report{Plugins: []Plugin{}}
	for _, c := range cands {
		ck.load(c)
		report.Plugins = append(report.Plugins, Plugin{ID: c.ID(), Directory: c.Display})
	}
	admission := lifecycle.CheckAdmission(cands, ck.host.HostVersion())
	var instances []contrib.Instance
	defer func() {
		for _, inst := range instances {
			inst.Close()
		}
	}()
	// Each plugin is linted on the host's cores as soon as its trees are
	// final, while the worker runs the next plugins' dry runs.
	lints := startLint(ck.plugins, ck.opts.Steps)
	defer lints.stop() // a run that ends early lints nothing more
	// One view for all publications: rebuilding it per plugin is quadratic.
	publish := sync.OnceFunc(ck.registry.Defer())
	defer publish()
	for _, c := range lifecycle.DependencyOrder(cands) {
		p := ck.byCand[c]
		if inst := ck.dryRun(ctx, p, admission[c]); inst != nil {
			instances = append(instances, inst)
		}
		lints.add(p)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	publish()
	view := ck.registry.View()
	for _, p := range ck.published {
		ck.add(p, view.Conflicts(p.cand.Manifest.ID)...)
	}
	for i, res := range lints.wait() {
		ck.applyLint(ck.plugins[i], res)
	}
	slices.SortFunc(ck.diags, compareNotes)
	report.Diagnostics = notesOf(slices.CompactFunc(ck.diags, func(a, b contrib.Diagnostic) bool { return compareNotes(a, b) == 0 }))
	return report, nil
}

// load snapshots one candidate's bundle and records its discovery
// diagnostics; a plugin whose manifest is unusable is compiled here, as it
// has no dry run.
func (ck *runner) load(c *lifecycle.Candidate) {
	p := &checkPlugin{cand: c, failed: c.Manifest == nil, lines: map[string][]string{}, parsed: map[string]*syntax.File{}}
	ck.plugins, ck.byCand[c] = append(ck.plugins, p), p
	if c.Manifest != nil && !c.Shadowed {
		ck.byID[c.Manifest.ID] = p
	}
	if b, err := lifecycle.ReadBundle(c.Dir); err == nil {
		p.files = b.Files()
	} else {
		p.failed = true
		ck.add(p, contrib.Diag(contrib.ExecutionFailed, c.ID(), contrib.Pos{File: c.Display},
			"cannot read the plugin bundle: %v", err))
	}
	for _, d := range c.Diagnostics {
		if d.Code == contrib.DuplicatePluginID && d.Pos.Line == 0 {
			d.Pos = c.KeyPos("id")
		}
		ck.add(p, d)
	}
	if c.Manifest == nil {
		ck.compileFallback(p)
	}
}

func compareNotes(a, b contrib.Diagnostic) int {
	return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line),
		cmp.Compare(a.Pos.Col, b.Pos.Col), cmp.Compare(a.Code, b.Code), cmp.Compare(a.Message, b.Message))
}

// dryRun activates p in the sandbox, or only compiles it when the host
// would block it for its dependencies, and returns the instance of a
// successful activation.
func (ck *runner) dryRun(ctx context.Context, p *checkPlugin, problems []contrib.Diagnostic) contrib.Instance {
	c, mf := p.cand, p.cand.Manifest
	ck.add(p, problems...)
	blocked := p.files == nil
	for _, d := range problems {
		blocked = blocked || d.Code == contrib.PluginDependencyUnsatisfied
		p.failed = p.failed || d.Code == contrib.HostVersionTooOld
	}
	providers := map[string]map[string]any{}
	for _, dep := range slices.Sorted(maps.Keys(mf.Dependencies)) {
		q := ck.byID[dep]
		switch {
		case q == nil || blocked:
		case q.failed:
			ck.add(p, contrib.Diag(contrib.PluginDependencyUnsatisfied, mf.ID, c.KeyPos("dependencies", dep),
				"dependency %s has errors, so it would not be active; fix it first", dep))
			blocked = true
		default:
			providers[dep] = q.exports
		}
	}
	if p.files == nil {
		return nil
	}
	req := ck.request(p, providers)
	if blocked || ck.opts.Static {
		p.failed = p.failed || blocked
		ck.addFailure(p, ck.compile(p, req))
		return nil
	}
	// DC22: an installed plugin the operator has not trusted for these exact
	// bytes never runs a line, not even in the sandbox: it is only compiled.
	// Plugins named on the command line are the author's own, like --dev.
	if c.Source.Installed() && len(ck.host.Admit(c, func() string { return lifecycle.Fingerprint(mf, lifecycle.NewBundle(p.files)) })) > 0 {
		ck.addFailure(p, ck.compile(p, req))
		return nil
	}
	// Plugins runs code from pull requests: always in a worker, under the
	// memory limit, killed after Timeout. The worker compiles and reports
	// compile errors; the checking process compiles too, for the trees of
	// the static checks and the style warnings (syntax trees do not cross
	// the channel), on another core while the worker runs (check_lint.go).
	p.trees = &req
	inst, err := ck.worker.DryRun(ctx, req)
	if err != nil {
		p.failed = true
		var ae *contrib.ActivationError
		p.compiled = errors.As(err, &ae) && ae.Compile
		ck.addFailure(p, err)
		return nil
	}
	p.compiled = true
	set := inst.Set()
	ck.add(p, slices.DeleteFunc(slices.Clone(set.Diagnostics), isolationOnly)...)
	if !c.Shadowed {
		ck.add(p, ck.host.AdmitStatusFields(mf.ID, set)...)
		ck.registry.Publish(&contrib.Published{Plugin: mf.ID, Generation: "check", Rank: c.Rank,
			Source: c.Source, Set: set, Gate: contrib.NewGate()})
		ck.published = append(ck.published, p)
	}
	p.exports = inst.Exports()
	return inst
}

// compileFallback compiles plugin.star of a plugin whose manifest is
// unusable, so its compile errors show in the same run as the manifest's.
func (ck *runner) compileFallback(p *checkPlugin) {
	const entry = "plugin.star"
	if _, ok := p.files[entry]; !ok {
		return
	}
	ck.addFailure(p, ck.compile(p, contrib.ActivationRequest{Plugin: p.cand.ID(), Bundle: lifecycle.NewBundle(p.files),
		Entry: entry, SourceRoot: p.cand.Display}))
}

// compile compiles req in the checking process, which runs no plugin
// code, and keeps the trees the compiler parsed in p.parsed: the static
// checks and the style warnings reuse the compiler's parse.
func (ck *runner) compile(p *checkPlugin, req contrib.ActivationRequest) error {
	return compileTrees(ck.opts.Steps, p, req)
}

func compileTrees(steps uint64, p *checkPlugin, req contrib.ActivationRequest) error {
	act := builtins.NewActivator(builtins.Options{Steps: steps, Parsed: func(_, file string, f *syntax.File) {
		p.parsed[file] = f
	}})
	return act.Compile(req)
}

// addFailure records the diagnostics of a failed compile or activation.
func (ck *runner) addFailure(p *checkPlugin, err error) {
	if err == nil {
		return
	}
	var ae *contrib.ActivationError
	if errors.As(err, &ae) {
		ck.add(p, ae.Diagnostics...)
		return
	}
	ck.add(p, contrib.Diag(contrib.ExecutionFailed, p.cand.ID(), contrib.Pos{}, "%v", err))
}

// add records diagnostics of p: notes are dropped; a missing place becomes
// the plugin's entry file (or manifest) at 1:1; a diagnostic whose line
// carries a matching disable comment is dropped.
func (ck *runner) add(p *checkPlugin, ds ...contrib.Diagnostic) {
	c := p.cand
	for _, d := range ds {
		if d.Severity == contrib.SeverityNote {
			continue
		}
		if d.Plugin == "" {
			d.Plugin = c.ID()
		}
		if d.Pos.File == "" || d.Pos.File == c.Display {
			d.Pos = contrib.Pos{File: c.Display + "/" + lifecycle.ManifestName}
			if c.Manifest != nil && p.files != nil {
				d.Pos.File = c.Display + "/" + c.Manifest.Entry
			}
		}
		if d.Pos.Line == 0 {
			d.Pos.Line, d.Pos.Col = 1, 1
		}
		if d.Pos.Col == 0 {
			d.Pos.Col = 1
		}
		if p.suppressed(d) {
			continue
		}
		ck.diags = append(ck.diags, d)
	}
}

// sandboxServices are the neutral services of a dry run: empty facts, and
// notes (print() output) dropped — they are not findings.
type sandboxServices struct{}

func (sandboxServices) Note(contrib.Diagnostic) {}
func (sandboxServices) Facts() contrib.Facts    { return contrib.Facts{} }

// noteOf is d as starhost reports it.
func noteOf(d contrib.Diagnostic) starhost.Note {
	return starhost.Note{Code: starhost.Code(d.Code), Severity: starhost.Severity(d.Severity), Plugin: d.Plugin,
		Pos: starhost.Position(d.Pos), Message: d.Message, Remedy: d.Remedy, Detail: d.Detail}
}

// notesOf converts a list of diagnostics; nil stays nil.
func notesOf(ds []contrib.Diagnostic) []starhost.Note {
	if ds == nil {
		return nil
	}
	out := make([]starhost.Note, len(ds))
	for i, d := range ds {
		out[i] = noteOf(d)
	}
	return out
}

// diagOf is n as the internal packages know it.
func diagOf(n starhost.Note) contrib.Diagnostic {
	return contrib.Diagnostic{Code: contrib.Code(n.Code), Severity: contrib.Severity(n.Severity), Plugin: n.Plugin,
		Pos: contrib.Pos(n.Pos), Message: n.Message, Remedy: n.Remedy, Detail: n.Detail}
}
