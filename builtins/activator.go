package builtins

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/contrib"
)

// Options configure the Starlark activator. The zero value uses
// DefaultStepBudget, DefaultMemoryLimit and DefaultCallbackTimeout.
type Options struct {
	// Steps is the step budget of each run (top level and each callback).
	Steps uint64
	// Parsed, when set, receives every bundle file the compiler parses
	// (bundle-relative path), comments retained and resolved, as written:
	// the compiler's own tree has the allocation guards' calls in place of
	// `*` and `+`, so the checker gets a second parse of the same source.
	// It must not modify f.
	Parsed func(plugin, file string, f *syntax.File)
	// MemoryLimit is the in-process heap budget in bytes: a run is
	// cancelled with ResourceExhausted when the heap grows this far over
	// the host's live heap while plugin code runs, and one repeat (or
	// list(), sorted(), ... of an iterable) larger than it is refused
	// before allocating. Negative turns both guards off.
	MemoryLimit int64
	// CallbackTimeout is the wall-clock limit of each run; it is cancelled
	// at its next step with CallbackTimeout. Negative turns it off.
	CallbackTimeout time.Duration
	// Limits, when set, is asked for MemoryLimit and CallbackTimeout at
	// each activation (a zero result keeps the field's value), so a new
	// generation runs under the configuration as it is now.
	Limits func() (memoryLimit int64, callbackTimeout time.Duration)
}

// Activator compiles and executes plugin modules (contrib.Activator). It
// holds no per-plugin state and is safe for concurrent use.
type Activator struct {
	opts Options

	mu       sync.Mutex
	compiled map[string]compiledBundle // by plugin: the last Compile, for the Activate that follows
}

// compiledBundle is a successful Compile kept for the Activate of the same
// snapshot, so a bundle is compiled once per activation.
type compiledBundle struct {
	bundle      any // the snapshot (compared by identity)
	entry, root string
	c           *bundleCompiler
}

var _ contrib.Activator = (*Activator)(nil)

// NewActivator returns an activator with opts.
func NewActivator(opts Options) *Activator {
	if opts.Steps == 0 {
		opts.Steps = DefaultStepBudget
	}
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	if opts.CallbackTimeout == 0 {
		opts.CallbackTimeout = DefaultCallbackTimeout
	}
	return &Activator{opts: opts, compiled: map[string]compiledBundle{}}
}

const localInstance = "crystal.instance"

// instance is one generation of one plugin.
type instance struct {
	req           contrib.ActivationRequest
	defNames      map[syntax.Position]syntax.Position // bundleCompiler.defNames
	steps         uint64
	memLimit      int64         // Options.MemoryLimit
	timeout       time.Duration // Options.CallbackTimeout
	threads       sync.Pool     // *starlark.Thread of finished callbacks, for reuseThread
	staging       *contrib.Staging
	activating    bool                     // true only while the module's top level runs
	hold          func(contrib.Diagnostic) // req.HoldNotes while Activate runs, then nil
	running       string                   // the bundle file whose top level runs now
	contributed   bool
	contributedAt contrib.Pos
	callbacks     map[contrib.AttachStage]starlark.Callable
	exports       map[string]any

	mu        sync.Mutex // guards closers and feature state below
	closers   []func()
	closeOnce sync.Once
	state     map[string]any // per-generation state of feature files, by key
}

// featureState returns the generation's state for key, creating it with mk
// on first use. Safe for concurrent use.
func featureState[T any](inst *instance, key string, mk func() T) T {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if v, ok := inst.state[key]; ok {
		t, _ := v.(T) // a nil interface stored by mk comes back as the zero T
		return t
	}
	if inst.state == nil {
		inst.state = map[string]any{}
	}
	v := mk()
	inst.state[key] = v
	return v
}

var _ contrib.Instance = (*instance)(nil)

func (inst *instance) note(d contrib.Diagnostic) {
	if inst.hold != nil { // only while Activate runs (req.HoldNotes)
		inst.hold(d)
		return
	}
	if inst.req.Services != nil {
		inst.req.Services.Note(d)
	}
}

// Activate compiles the entry file and everything it loads from the bundle
// snapshot, then executes the module with a staging registrar (AT1). A
// compile failure is an *contrib.ActivationError with Compile set (AT3); a
// failure while executing — including too many steps, cancellation of ctx, a
// panic in a host builtin, or contribute() never called — is one without.
func (a *Activator) Activate(ctx context.Context, req contrib.ActivationRequest) (contrib.Instance, error) {
	c, err := a.take(req)
	if err != nil {
		return nil, err
	}
	memLimit, timeout := a.opts.MemoryLimit, a.opts.CallbackTimeout
	if a.opts.Limits != nil {
		m, t := a.opts.Limits()
		memLimit, timeout = cmp.Or(m, memLimit), cmp.Or(t, timeout)
	}
	inst := &instance{
		req:       req,
		steps:     cmp.Or(req.Steps, a.opts.Steps), // config.toml's step_budget for this plugin, if the host set it
		memLimit:  memLimit,
		timeout:   timeout,
		staging:   contrib.NewStaging(req.Plugin, req.Rules),
		callbacks: map[contrib.AttachStage]starlark.Callable{},
		exports:   map[string]any{},
		hold:      req.HoldNotes,
	}
	defer func() { inst.hold = nil }() // from now on notes go to Services
	if err := inst.execute(ctx, c); err != nil {
		return nil, err
	}
	for _, f := range activated {
		f(inst)
	}
	return inst, nil
}

// Compile compiles the entry file and everything it loads without running
// any of it (AT3).
func (a *Activator) Compile(req contrib.ActivationRequest) error {
	c, err := a.compileBundle(req)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		delete(a.compiled, req.Plugin)
		return err
	}
	a.compiled[req.Plugin] = compiledBundle{bundle: req.Bundle, entry: req.Entry, root: req.SourceRoot, c: c}
	return nil
}

// take returns the programs a Compile of the same snapshot just produced, or
// compiles afresh. Compiled programs are immutable; each activation executes
// them into its own globals.
func (a *Activator) take(req contrib.ActivationRequest) (*bundleCompiler, error) {
	a.mu.Lock()
	kept, ok := a.compiled[req.Plugin]
	delete(a.compiled, req.Plugin)
	a.mu.Unlock()
	if ok && kept.bundle == any(req.Bundle) && kept.entry == req.Entry && kept.root == req.SourceRoot {
		return kept.c, nil
	}
	return a.compileBundle(req)
}

func (a *Activator) compileBundle(req contrib.ActivationRequest) (*bundleCompiler, error) {
	c := &bundleCompiler{plugin: req.Plugin, fsys: req.Bundle, root: req.SourceRoot, progs: map[string]*program{}, parsed: a.opts.Parsed}
	c.compile(req.Entry, nil, contrib.Pos{File: c.display(req.Entry)})
	if len(c.diags) > 0 {
		return nil, &contrib.ActivationError{Compile: true, Diagnostics: c.diags}
	}
	return c, nil
}

// execute runs the entry module; loaded modules run once each and are frozen.
func (inst *instance) execute(ctx context.Context, c *bundleCompiler) error {
	inst.defNames = c.defNames
	th, st := inst.newThread(inst.req.Plugin + ":module")
	// The operator guards bound to inst's budget, in a copy of the
	// predeclared names — when a file uses one: the copy was an eighth of
	// what starting 1,000 one-tool plugins allocated (issue 26 point 5).
	// A guard's name is not an identifier, so a file the rewrite left
	// without one never looks one up.
	names := predeclared
	if c.operandGuards {
		names = instancePredeclared(inst)
	}
	done := map[string]starlark.StringDict{}
	var stack []string
	var exec func(p string) (starlark.StringDict, error)
	exec = func(p string) (starlark.StringDict, error) {
		if g, ok := done[p]; ok {
			return g, nil
		}
		stack = append(stack, p)
		inst.running = p
		g, err := c.progs[p].prog.Init(th, names)
		stack = stack[:len(stack)-1]
		if len(stack) > 0 {
			inst.running = stack[len(stack)-1]
		}
		g.Freeze() // globals are frozen after execution: callbacks cannot mutate them
		if err != nil {
			return nil, err
		}
		done[p] = g
		return g, nil
	}
	th.Load = func(_ *starlark.Thread, module string) (starlark.StringDict, error) {
		target, err := ResolveLoad(stack[len(stack)-1], module)
		if err != nil {
			return nil, fmt.Errorf("load(%q) %w", module, err)
		}
		return exec(target)
	}
	inst.activating = true
	err := inst.guarded(ctx, th, st, "module", func() error {
		_, err := exec(inst.req.Entry)
		return err
	})
	inst.activating = false
	if err != nil {
		var rf *runFailure
		errors.As(err, &rf)
		return &contrib.ActivationError{Diagnostics: []contrib.Diagnostic{rf.diag}}
	}
	if !inst.contributed {
		d := contrib.Diag(contrib.ContributeMissing, inst.req.Plugin, contrib.Pos{File: c.display(inst.req.Entry)},
			"the module never called contribute(); nothing is contributed")
		return &contrib.ActivationError{Diagnostics: []contrib.Diagnostic{d}}
	}
	return nil
}

// Set returns the staged contributions.
func (inst *instance) Set() *contrib.Set { return inst.staging.Set() }

// Exports returns the exported services (frozen Starlark values).
func (inst *instance) Exports() map[string]any { return inst.exports }

// Attach runs one attach callback, if the plugin gave one.
func (inst *instance) Attach(ctx context.Context, stage contrib.AttachStage) (bool, error) {
	var always error // what the stage does for every generation failed
	if prepare := attachAlways[stage]; prepare != nil {
		always = prepare(inst)
	}
	fn, ok := inst.callbacks[stage]
	if !ok {
		return always != nil, always
	}
	c := inst.newCtx(ctx, ctxAttach)
	args := []starlark.Value{c}
	if prepare := attachPreparers[stage]; prepare != nil {
		extra, run := prepare(inst, c)
		if !run {
			return always != nil, always
		}
		args = append(args, extra...)
	}
	_, err := inst.call(ctx, string(stage), fn, args...)
	if err != nil {
		if failed := attachFailed[stage]; failed != nil {
			failed(inst)
		}
	}
	return true, err
}

// Attaches reports whether Attach of stage would do anything: the plugin
// gave a callback for it, or the stage does something for every generation
// (contrib.AttachProber).
func (inst *instance) Attaches(stage contrib.AttachStage) bool {
	_, ok := inst.callbacks[stage]
	return ok || attachAlways[stage] != nil
}

func (inst *instance) hasCapability(c string) bool { return slices.Contains(inst.req.Capabilities, c) }

// Close releases what the generation owns (timers, sinks). It is idempotent.
func (inst *instance) Close() {
	inst.closeOnce.Do(func() {
		for _, f := range inst.closers {
			f()
		}
	})
}

// onClose registers a release function of the generation.
func (inst *instance) onClose(f func()) {
	inst.mu.Lock()
	inst.closers = append(inst.closers, f)
	inst.mu.Unlock()
}

// failureDiag extracts the diagnostic of a failed run.
func failureDiag(err error) contrib.Diagnostic {
	// A *runFailure, or the failure of a generation in a worker process.
	var df interface{ Diagnostic() contrib.Diagnostic }
	if errors.As(err, &df) {
		return df.Diagnostic()
	}
	return contrib.Diag(contrib.CallbackFailed, "", contrib.Pos{}, "%v", err)
}

// FailureDiagnostic returns the diagnostic carried by an error from Attach
// or another run of this package.
func FailureDiagnostic(err error) contrib.Diagnostic { return failureDiag(err) }

// toolFunc adapts a Starlark tool implementation (DC6): a returned str is
// text, dict/list structured JSON, error(code, message) an expected failure;
// a raised error reaches the model only as tool_failed, its text goes to
// diagnostics.
func (inst *instance) toolFunc(name string, pos contrib.Pos, fn starlark.Callable) contrib.ToolFunc {
	what := "tool " + name
	thread := inst.req.Plugin + ":" + what
	return func(ctx context.Context, args any) contrib.Result {
		// The ctx object and the argument tuple in one allocation.
		call := &struct {
			c    callCtx
			args [2]starlark.Value
		}{}
		inst.initCtx(&call.c, ctx, ctxTool)
		v, ok := args.(starlark.Value) // decoded as starlarkArgs
		if !ok {
			v = FromJSON(args) // the Go form: a worker's call, Dispatch's check
		}
		call.args = [2]starlark.Value{&call.c, v}
		out, err := inst.callNamed(ctx, thread, what, fn, call.args[:]...)
		if err != nil {
			inst.note(failureDiag(err))
			return contrib.FailureWithCause(contrib.ErrToolFailed, failureCause(err), failureReason(err))
		}
		return inst.toResult(what, pos, out)
	}
}

// badReturn is the failure of a callback that returned a value of the wrong
// type: a diagnostic of this plugin at the constructor call that declared
// the callback.
func (inst *instance) badReturn(pos contrib.Pos, what string, v starlark.Value, want string) error {
	return &runFailure{diag: contrib.Diag(contrib.CallbackFailed, inst.req.Plugin, pos,
		"%s returned a value of type %s; want %s", what, v.Type(), want)}
}

func (inst *instance) toResult(what string, pos contrib.Pos, v starlark.Value) contrib.Result {
	if parts, ok, err := contentParts(v); ok || err != nil { // MC1 (content.go)
		if err != nil {
			inst.note(contrib.Diag(contrib.CallbackFailed, inst.req.Plugin, pos, "%s: result: %v", what, err))
			return contrib.Failure(contrib.ErrToolFailed, inst.at("the result is not a valid content list", pos))
		}
		return contrib.PartsResult(parts)
	}
	switch v := v.(type) {
	case starlark.String:
		return contrib.Result{Text: string(v)}
	case *errorValue:
		return contrib.Failure(v.code, v.message)
	case starlark.NoneType:
		return contrib.Result{}
	}
	data, err := ToJSON(v)
	if err != nil {
		inst.note(contrib.Diag(contrib.CallbackFailed, inst.req.Plugin, pos, "%s: result: %v", what, err))
		return contrib.Failure(contrib.ErrToolFailed, inst.at("the result cannot be encoded as JSON", pos))
	}
	return contrib.Result{Data: data}
}

// commandFunc adapts a Starlark command (DC8): a str is this turn's input,
// None passes to the next contribution.
func (inst *instance) commandFunc(name string, pos contrib.Pos, fn starlark.Callable) contrib.CommandFunc {
	what := "command /" + name
	return func(ctx context.Context, cmd contrib.Invocation) (string, bool, error) {
		c := inst.newCtx(ctx, ctxCommand)
		out, err := inst.call(ctx, what, fn, c, invocationValue(cmd))
		if err == nil {
			if parts, ok, perr := contentParts(out); ok || perr != nil {
				return inst.commandParts(ctx, pos, what, parts, perr)
			}
		}
		return inst.textResult(pos, what, out, err, "a string, None or content parts")
	}
}

// commandParts is the result of a command that returned content parts
// (image(...), resource(...), or a list mixing them with strings): its
// text parts joined are this turn's input, and the caller that can take
// the parts (an MCP prompt) gets them all, in order, through the
// context's parts sink.
func (inst *instance) commandParts(ctx context.Context, pos contrib.Pos, what string, parts []contrib.Part, err error) (string, bool, error) {
	text := ""
	if err == nil {
		text, err = contrib.CommandParts(parts)
	}
	if err != nil {
		return "", false, &runFailure{diag: contrib.Diag(contrib.CallbackFailed, inst.req.Plugin, pos, "%s: result: %v", what, err)}
	}
	if sink := contrib.PartsSinkFrom(ctx); sink != nil {
		sink(parts)
	}
	return text, true, nil
}

// textResult reads a callback's text result: a str is produced text, None
// produces nothing; anything else is an error at the constructor's pos.
func (inst *instance) textResult(pos contrib.Pos, what string, out starlark.Value, err error, want string) (string, bool, error) {
	if err != nil {
		return "", false, err
	}
	switch v := out.(type) {
	case starlark.String:
		return string(v), true, nil
	case starlark.NoneType:
		return "", false, nil
	}
	return "", false, inst.badReturn(pos, what, out, want)
}

// resolveFunc adapts a placeholder's resolve (CC13).
func (inst *instance) resolveFunc(name string, pos contrib.Pos, fn starlark.Callable) contrib.ResolveFunc {
	what := "placeholder {{" + name + "}}"
	return func(ctx context.Context, site contrib.Site) (string, bool, error) {
		c := inst.newCtx(ctx, ctxPlaceholder)
		c.site = site
		out, err := inst.call(ctx, what, fn, c)
		return inst.textResult(pos, what, out, err, "a string")
	}
}

// prepareClients runs attach_clients only with the models capability.
func prepareClients(inst *instance, _ *callCtx) ([]starlark.Value, bool) {
	return nil, inst.hasCapability("models")
}
