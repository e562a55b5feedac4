package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// Serve runs plugin generations over the channel r/w until the host
// closes it: one per slot (wire.SlotMethod), several when the worker
// serves an isolation group. It returns nil when r ends cleanly.
func Serve(r io.Reader, w io.Writer) error { return serve(r, w, nil) }

// serve is Serve; a hello, when not nil, is sent before anything else
// (the handshake, Main).
func serve(r io.Reader, w io.Writer, hello *wire.Hello) error {
	g := &group{slots: map[uint64]*server{}}
	g.conn = wire.NewConn(r, w, g.handle, nil)
	if hello != nil {
		if err := g.conn.Notify(wire.NotifyHello, hello); err != nil {
			return err
		}
		if bell := wire.BellFromEnv(); bell != nil {
			// The host reads only while it waits for an answer: a frame
			// written while serving none of its calls rings the bell.
			g.conn.RingOn(bell)
		}
	}
	err := g.conn.Serve()
	g.conn.Close(errors.New("the host closed the channel"))
	g.mu.Lock()
	for _, s := range g.slots {
		s.close()
	}
	g.mu.Unlock()
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// group is a worker's generations by slot. Slot 0 is the worker itself:
// ping and the dry runs of check.
type group struct {
	conn *wire.Conn

	mu    sync.Mutex
	slots map[uint64]*server
}

// handle routes a call to its slot's server; compile and activate open a
// slot, close ends one.
func (g *group) handle(ctx context.Context, m string, body []byte) (any, error) {
	method, slot := wire.SplitSlot(m)
	g.mu.Lock()
	s := g.slots[slot]
	switch {
	case s != nil:
	case method == wire.MethodClose:
		g.mu.Unlock()
		return nil, nil
	case slot == 0 || method == wire.MethodCompile || method == wire.MethodActivate:
		s = &server{}
		s.conn = link{Conn: g.conn, slot: slot}
		s.svc = &remoteServices{conn: s.conn}
		g.slots[slot] = s
	default:
		g.mu.Unlock()
		return nil, fmt.Errorf("no generation in slot %d", slot)
	}
	if method == wire.MethodClose {
		delete(g.slots, slot)
	}
	g.mu.Unlock()
	if method == wire.MethodClose {
		s.close()
		return nil, nil
	}
	return s.handle(ctx, method, body)
}

// link is one slot's end of the channel: its calls and notifications carry
// the slot.
type link struct {
	*wire.Conn
	slot uint64
}

func (l link) Call(ctx context.Context, method string, in, out any) error {
	return l.Conn.Call(ctx, wire.SlotMethod(method, l.slot), in, out)
}

func (l link) Notify(method string, in any) error {
	return l.Conn.Notify(wire.SlotMethod(method, l.slot), in)
}

func (l link) NotifyWithin(ctx context.Context, method string, in any) error {
	return l.Conn.NotifyWithin(ctx, wire.SlotMethod(method, l.slot), in)
}

// server is one slot's state: one bundle, at most one generation.
type server struct {
	conn link
	act  *builtins.Activator
	svc  *remoteServices

	mu     sync.Mutex
	bundle *wire.Bundle
	fsys   *memFS // the files of bundle, one value for compile and activate
	inst   contrib.Instance
	set    *contrib.Set
	deps   []contrib.Instance // dependencies activated in this worker (check)
	// checking is set once the worker serves dry runs (dryrun.go).
	checking bool

	codecs   handles[contrib.Codec]  // codecs of client factories
	provided handles[[]contrib.Tool] // tool_provider answers the host still holds
}

// close ends the slot's generation and what it activated for it.
func (s *server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inst != nil {
		s.inst.Close()
	}
	for _, d := range s.deps {
		d.Close()
	}
	s.inst, s.set, s.deps = nil, nil, nil
	s.codecs.clear()
	s.provided.clear()
}

func (s *server) handle(ctx context.Context, method string, body []byte) (any, error) {
	switch method {
	case wire.MethodPing:
		return nil, nil
	case wire.MethodCompile, wire.MethodActivate:
		return s.activate(ctx, method, body)
	case wire.MethodDryRun:
		return s.dryRun(ctx, body)
	case wire.MethodAttach:
		var a wire.Attach
		if err := json.Unmarshal(body, &a); err != nil {
			return nil, err
		}
		inst, _ := s.current()
		if inst == nil {
			return nil, errors.New("attach before activate")
		}
		s.svc.facts.Store(&a.Facts)
		ran, err := inst.Attach(s.svc.serving(ctx, a.Facts), a.Stage)
		return wire.Outcome{OK: ran, Err: failure(err)}, nil
	case wire.MethodTool, wire.MethodCommand, wire.MethodPlaceholder, wire.MethodHook, wire.MethodPoint,
		wire.MethodClassify, wire.MethodRuntimeEntry:
		return s.invoke(ctx, method, body)
	case wire.MethodFactoryCreate, wire.MethodCodecEncode, wire.MethodCodecDecode:
		return s.serveFactory(ctx, method, body)
	case wire.MethodReleaseTools:
		var g uint64
		if err := json.Unmarshal(body, &g); err != nil {
			return nil, err
		}
		s.provided.remove(g)
		return nil, nil
	case wire.MethodStart:
		// Timers run here under a gate of the worker's own; killing the
		// worker stops them (docs/isolation.md).
		inst, _ := s.current()
		if st, ok := inst.(contrib.Starter); ok {
			st.Start(contrib.NewGate())
		}
		return nil, nil
	}
	return nil, fmt.Errorf("unknown method %q", method)
}

func (s *server) current() (contrib.Instance, *contrib.Set) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inst, s.set
}

// activate compiles (compile) or activates (activate) the bundle. A bundle
// sent with compile is kept for the activate that follows, which then
// carries none.
func (s *server) activate(ctx context.Context, method string, body []byte) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inst != nil {
		return nil, errors.New("the generation is already active")
	}
	if len(body) > 0 {
		var b wire.Bundle
		if err := json.Unmarshal(body, &b); err != nil {
			return nil, err
		}
		if b.Files != nil || s.fsys == nil {
			s.fsys = &memFS{files: b.Files}
		}
		s.bundle = &b
	}
	if s.bundle == nil {
		return nil, errors.New("no bundle")
	}
	s.svc.facts.Store(&s.bundle.Facts)
	s.activator(s.bundle.Steps)
	if method == wire.MethodCompile {
		return activated(s.act.Compile(s.request(s.bundle, s.fsys, nil))), nil
	}
	exports, deps, err := s.activateDeps(ctx, s.bundle.Deps)
	s.deps = append(s.deps, deps...) // closed with the worker
	if err != nil {
		return nil, err
	}
	req := s.request(s.bundle, s.fsys, exports)
	inst, err := s.act.Activate(ctx, req)
	if err != nil {
		return activated(err), nil
	}
	s.inst, s.set = inst, inst.Set()
	trimSoon()
	a := describe(s.set)
	a.Exports = slices.Sorted(maps.Keys(inst.Exports()))
	if p, ok := inst.(contrib.AttachProber); ok {
		a.Probed = true
		for _, stage := range contrib.AttachStages {
			if p.Attaches(stage) {
				a.Attaches = append(a.Attaches, stage)
			}
		}
	}
	return a, nil
}

// activator makes the worker's Starlark activator on first use. The
// worker's own guards use the worker's limit: one allocation past it is
// refused before it is made, and gradual growth cancels the run; the OS
// limit and the host's watchdog stay the backstop.
func (s *server) activator(steps uint64) {
	if s.act == nil {
		limit, _ := strconv.ParseInt(os.Getenv(wire.EnvMemoryLimit), 10, 64)
		s.act = builtins.NewActivator(builtins.Options{Steps: steps, MemoryLimit: limit})
	}
}

// activateDeps activates the bundles of dependencies in order, each with
// the exports of those before it, and returns every export by plugin and
// the instances, which the caller closes. A dependency that fails is left
// out: deps.require then says so.
func (s *server) activateDeps(ctx context.Context, deps []wire.Bundle) (map[string]map[string]any, []contrib.Instance, error) {
	exports := map[string]map[string]any{}
	var opened []contrib.Instance
	for i := range deps {
		d := &deps[i]
		req := s.request(d, &memFS{files: d.Files}, exports)
		req.Services = quiet{s.svc} // its notes were the provider's own worker's to give
		inst, err := s.act.Activate(ctx, req)
		if err != nil {
			continue
		}
		exports[d.Plugin] = inst.Exports()
		opened = append(opened, inst)
	}
	return exports, opened, ctx.Err()
}

func (s *server) request(b *wire.Bundle, fsys *memFS, exports map[string]map[string]any) contrib.ActivationRequest {
	providers := map[string]map[string]any{}
	for _, dep := range b.Dependencies {
		if e, ok := exports[dep]; ok {
			providers[dep] = e
		}
	}
	return contrib.ActivationRequest{
		Plugin: b.Plugin, DisplayName: b.DisplayName, Generation: b.Generation, Source: b.Source,
		Bundle: fsys, Entry: b.Entry, SourceRoot: b.SourceRoot, Directory: b.Directory,
		Capabilities: b.Capabilities, Exports: b.Exports, Providers: providers, Rules: b.Rules, Services: s.svc,
		Fault: func(d contrib.Diagnostic) { _ = s.conn.Notify(wire.NotifyFault, d) },
	}
}

// activated shapes a failed compile or activation (nil: compiled).
func activated(err error) wire.Activated {
	if err == nil {
		return wire.Activated{}
	}
	var ae *contrib.ActivationError
	if !errors.As(err, &ae) {
		ae = &contrib.ActivationError{Diagnostics: []contrib.Diagnostic{builtins.FailureDiagnostic(err)}}
	}
	return wire.Activated{Failed: true, Compile: ae.Compile, Diagnostics: ae.Diagnostics}
}

// describe is the staged set without its implementations: the contrib
// types cross whole, their functions excluded by their JSON tags.
func describe(set *contrib.Set) wire.Activated {
	a := wire.Activated{Diagnostics: set.Diagnostics, StatusFields: set.StatusFields, Tools: set.Tools,
		Commands: set.Commands, Placeholders: set.Placeholders, Hooks: set.Hooks, Points: set.Points}
	for _, c := range set.Classifiers {
		a.Classifiers = append(a.Classifiers, c.Pos)
	}
	for _, f := range set.ClientFactories {
		a.Factories = append(a.Factories, wire.Factory{Protocol: f.Protocol, Multimodal: f.CreateMultimodal != nil, Pos: f.Pos})
	}
	return a
}

// invoke runs one contribution of the generation: a tool, command,
// placeholder, hook, point entry (static or added at run time) or
// classifier, with the host facts the call carries.
func (s *server) invoke(ctx context.Context, method string, body []byte) (any, error) {
	var in wire.Invoke
	if err := wire.DecodeInvoke(body, &in); err != nil {
		return nil, err
	}
	_, set := s.current()
	if set == nil {
		return nil, errors.New("call before activate")
	}
	s.svc.facts.Store(&in.Facts)
	ctx = s.svc.serving(ctx, in.Facts)
	switch method {
	case wire.MethodTool:
		tools := set.Tools
		if in.Group != 0 {
			var ok bool
			if tools, ok = s.provided.get(in.Group); !ok {
				return contrib.Failure(contrib.ErrToolUnavailable, "the planning that provided this tool is over"), nil
			}
		}
		t, err := at(tools, in.Index, "tool")
		if err != nil {
			return nil, err
		}
		args, err := toolArgs(in.Args, contrib.ArgsFormOf(t.Run))
		if err != nil {
			return nil, err
		}
		if in.Progress {
			ctx = contrib.WithProgress(ctx, s.conn.Progress(ctx))
		}
		return wire.AppendResult(nil, t.Run.Run(ctx, args))
	case wire.MethodCommand:
		c, err := at(set.Commands, in.Index, "command")
		if err != nil {
			return nil, err
		}
		var parts []contrib.Part
		text, ok, err := c.Run(contrib.WithPartsSink(ctx, func(ps []contrib.Part) { parts = ps }), in.Inv)
		return wire.Outcome{Text: text, OK: ok, Parts: parts, Err: failure(err)}, nil
	case wire.MethodPlaceholder:
		p, err := at(set.Placeholders, in.Index, "placeholder")
		if err != nil {
			return nil, err
		}
		text, ok, err := p.Resolve(ctx, in.Site)
		return wire.Outcome{Text: text, OK: ok, Err: failure(err)}, nil
	case wire.MethodClassify:
		c, err := at(set.Classifiers, in.Index, "classifier")
		if err != nil {
			return nil, err
		}
		args, err := wire.DecodeValue(in.Args)
		if err != nil {
			return nil, err
		}
		class, ok, err := c.Classify(ctx, in.Tool, args)
		return wire.Outcome{OK: ok, Class: class, Err: failure(err)}, nil
	case wire.MethodHook:
		h, err := at(set.Hooks, in.Index, "hook")
		if err != nil {
			return nil, err
		}
		return s.valueOutcome(h.Run(ctx, in.Event, in.Payload)), nil
	}
	if in.Call == nil {
		return nil, errors.New("a point call without its call")
	}
	if method == wire.MethodRuntimeEntry {
		return s.valueOutcome(s.svc.runEntry(ctx, in.Index, *in.Call)), nil
	}
	e, err := at(set.Points, in.Index, "point entry")
	if err != nil {
		return nil, err
	}
	return s.valueOutcome(e.Run(ctx, *in.Call)), nil
}

// toolArgs decodes a tool call's arguments straight into the form the tool
// takes them in (contrib.ArgsFormOf the tool's Run: a Starlark tool's are
// Starlark values), as the host does in process (issue 26, point 4): a
// json.Decoder into Go values and their conversion were a tenth of a
// worker's CPU in a trivial call (point 2). The host checked them against
// the same refusals already. Empty arguments are nil.
func toolArgs(raw []byte, form contrib.JSONBuilder) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	return contrib.ParseJSON(raw, form)
}

// at returns list[i], or an error naming what the host asked for.
func at[T any](list []T, i int, what string) (T, error) {
	if i < 0 || i >= len(list) {
		var zero T
		return zero, fmt.Errorf("no %s %d", what, i)
	}
	return list[i], nil
}

// failure carries a callback's error as its diagnostic.
func failure(err error) *contrib.Diagnostic {
	if err == nil {
		return nil
	}
	d := builtins.FailureDiagnostic(err)
	return &d
}

// valueOutcome shapes a hook's or point entry's result: a JSON-like value,
// an expected failure (error(code, message)), or a raised one. A
// tool_provider's tools stay here under a group number until the host
// releases them; their declarations cross.
func (s *server) valueOutcome(out any, err error) wire.Outcome {
	var te *contrib.ToolError
	switch {
	case errors.As(err, &te):
		o := wire.Outcome{ToolErr: te}
		if pe := (*contrib.PlacedError)(nil); errors.As(err, &pe) && pe.Pos.IsValid() {
			o.ToolErrPos = &pe.Pos
		}
		return o
	case err != nil:
		return wire.Outcome{Err: failure(err)}
	}
	if tools, ok := out.([]contrib.Tool); ok {
		return wire.Outcome{Provided: &wire.Provided{Group: s.provided.add(tools), Tools: tools}}
	}
	v, err := json.Marshal(out)
	if err != nil {
		return wire.Outcome{Err: failure(err)}
	}
	return wire.Outcome{Value: v}
}

// quiet are the services of a dependency activated in this worker for its
// exports: its notes were already given by its own worker.
type quiet struct{ *remoteServices }

func (quiet) Note(contrib.Diagnostic) {}
