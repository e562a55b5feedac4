package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// Serve runs one plugin generation over the channel r/w until the host
// closes it. It returns nil when r ends cleanly.
func Serve(r io.Reader, w io.Writer) error {
	s := &server{}
	s.conn = wire.NewConn(r, w, s.handle, nil)
	s.svc = &remoteServices{conn: s.conn}
	err := s.conn.Serve()
	s.conn.Close(errors.New("the host closed the channel"))
	s.mu.Lock()
	if s.inst != nil {
		s.inst.Close()
	}
	s.mu.Unlock()
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// server is the worker's state: one bundle, at most one generation.
type server struct {
	conn *wire.Conn
	act  *builtins.Activator
	svc  *remoteServices

	mu     sync.Mutex
	bundle *wire.Bundle
	fsys   *memFS // the files of bundle, one value for compile and activate
	inst   contrib.Instance
	set    *contrib.Set
}

func (s *server) handle(ctx context.Context, method string, body []byte) (any, error) {
	switch method {
	case wire.MethodPing:
		return nil, nil
	case wire.MethodCompile, wire.MethodActivate:
		return s.activate(ctx, method, body)
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
		ran, err := inst.Attach(ctx, a.Stage)
		return wire.Outcome{OK: ran, Err: failure(err)}, nil
	case wire.MethodTool, wire.MethodCommand, wire.MethodPlaceholder:
		return s.invoke(ctx, method, body)
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
	if s.act == nil {
		s.act = builtins.NewActivator(builtins.Options{Steps: s.bundle.Steps})
	}
	req := s.request()
	if method == wire.MethodCompile {
		return activated(s.act.Compile(req)), nil
	}
	inst, err := s.act.Activate(ctx, req)
	if err != nil {
		return activated(err), nil
	}
	s.inst, s.set = inst, inst.Set()
	return describe(s.set), nil
}

func (s *server) request() contrib.ActivationRequest {
	b := s.bundle
	return contrib.ActivationRequest{
		Plugin: b.Plugin, DisplayName: b.DisplayName, Generation: b.Generation, Source: b.Source,
		Bundle: s.fsys, Entry: b.Entry, SourceRoot: b.SourceRoot, Directory: b.Directory,
		Capabilities: b.Capabilities, Exports: b.Exports, Rules: b.Rules, Services: s.svc,
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

// describe is the staged set without its implementations.
func describe(set *contrib.Set) wire.Activated {
	a := wire.Activated{Diagnostics: set.Diagnostics, StatusFields: set.StatusFields}
	for _, t := range set.Tools {
		a.Tools = append(a.Tools, wire.Tool{Name: t.Name, Description: t.Description, Catalogs: t.Catalogs,
			Parameters: t.Parameters, ReadOnly: t.ReadOnly, Pos: t.Pos})
	}
	for _, c := range set.Commands {
		a.Commands = append(a.Commands, wire.Command{Name: c.Name, Aliases: c.Aliases, Description: c.Description,
			Order: c.Order, Pos: c.Pos})
	}
	for _, p := range set.Placeholders {
		a.Placeholders = append(a.Placeholders, wire.Placeholder{Name: p.Name, Pos: p.Pos})
	}
	return a
}

// invoke calls one tool, command or placeholder of the generation.
func (s *server) invoke(ctx context.Context, method string, body []byte) (any, error) {
	var in wire.Invoke
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	_, set := s.current()
	if set == nil {
		return nil, errors.New("call before activate")
	}
	s.svc.facts.Store(&in.Facts)
	switch method {
	case wire.MethodTool:
		if in.Index < 0 || in.Index >= len(set.Tools) {
			return nil, fmt.Errorf("no tool %d", in.Index)
		}
		d := json.NewDecoder(bytes.NewReader(in.Args))
		d.UseNumber()
		var args any
		if err := d.Decode(&args); err != nil {
			return nil, err
		}
		return set.Tools[in.Index].Run(ctx, args), nil
	case wire.MethodCommand:
		if in.Index < 0 || in.Index >= len(set.Commands) {
			return nil, fmt.Errorf("no command %d", in.Index)
		}
		text, ok, err := set.Commands[in.Index].Run(ctx, in.Inv)
		return wire.Outcome{Text: text, OK: ok, Err: failure(err)}, nil
	default:
		if in.Index < 0 || in.Index >= len(set.Placeholders) {
			return nil, fmt.Errorf("no placeholder %d", in.Index)
		}
		text, ok, err := set.Placeholders[in.Index].Resolve(ctx, in.Site)
		return wire.Outcome{Text: text, OK: ok, Err: failure(err)}, nil
	}
}

// failure carries a callback's error as its diagnostic.
func failure(err error) *contrib.Diagnostic {
	if err == nil {
		return nil
	}
	d := builtins.FailureDiagnostic(err)
	return &d
}
