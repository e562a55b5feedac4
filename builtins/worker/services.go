package worker

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// remoteServices are the host's services as the worker's Starlark sees
// them: every method is a call (or a notification) back to the host. The
// facts travel with each call from the host instead, since every callback
// reads them: one round trip less per call.
type remoteServices struct {
	conn  link
	facts atomic.Pointer[contrib.Facts]
	// scopes holds the model clients of each session served (scope.go).
	scopes scopeLocals

	mu      sync.Mutex
	entries map[int]contrib.PointFunc // entries added at run time, by number (entries.go)
	byID    map[string]int            // their numbers by the host registry's id
	next    int
}

var (
	_ contrib.Services           = (*remoteServices)(nil)
	_ builtins.SessionSource     = (*remoteServices)(nil)
	_ builtins.EnvironmentSource = (*remoteServices)(nil)
	_ builtins.DataSource        = (*remoteServices)(nil)
	_ builtins.StatusSource      = (*remoteServices)(nil)
)

func (s *remoteServices) Note(d contrib.Diagnostic) { _ = s.conn.Notify(wire.NotifyNote, d) }

func (s *remoteServices) Facts() contrib.Facts {
	if f := s.facts.Load(); f != nil {
		return *f
	}
	return contrib.Facts{}
}

// call asks the host; a failed call (the host is gone) leaves out empty.
// Host services have no context parameter: the channel's own life bounds
// them.
func (s *remoteServices) call(method string, in, out any) bool {
	return s.conn.Call(context.Background(), method, in, out) == nil
}

// sessionReply carries both views (CC20–CC22); nil before the session is
// published.
type sessionReply struct {
	Session *builtins.ModelFacts  `json:"session,omitempty"`
	Review  *builtins.ReviewFacts `json:"review,omitempty"`
}

func (s *remoteServices) session() sessionReply {
	var r sessionReply
	s.call(wire.MethodSession, nil, &r)
	return r
}

func (s *remoteServices) Session() *builtins.ModelFacts { return s.session().Session }
func (s *remoteServices) Review() *builtins.ReviewFacts { return s.session().Review }

func (s *remoteServices) Environment() *builtins.Environment {
	var raw json.RawMessage
	if !s.call(wire.MethodEnv, nil, &raw) || len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var env builtins.Environment
	if json.Unmarshal(raw, &env) != nil {
		return nil
	}
	return &env
}

func (s *remoteServices) DataDirs(plugin, directory string, source contrib.Source) (string, string, *contrib.Diagnostic) {
	var d wire.DataDirs
	s.call(wire.MethodDataDirs, wire.DataDirs{Plugin: plugin, Directory: directory}, &d)
	return d.Global, d.Project, d.Refused
}

func (s *remoteServices) StatusSink(plugin, generation string) builtins.StatusSink {
	var ok bool
	if !s.call(wire.MethodStatusSink, nil, &ok) || !ok {
		return nil
	}
	return remoteSink{s.conn}
}

// remoteSink pushes status texts to the host's sink of this generation.
type remoteSink struct{ conn link }

func (r remoteSink) Set(name, text string) {
	_ = r.conn.Notify(wire.NotifyStatusSet, wire.StatusUpdate{Name: name, Text: text})
}
func (r remoteSink) Clear(name string) {
	_ = r.conn.Notify(wire.NotifyStatusClear, wire.StatusUpdate{Name: name})
}
func (r remoteSink) Retire() { _ = r.conn.Notify(wire.NotifyStatusRetire, nil) }

// SetAt and ClearAt send the update within the host's call that ctx
// serves, with the call's place: the host applies it to the line of the
// session that call serves (builtins.SetStatus), and notes a name the
// plugin did not declare at the place. Outside a call (a timer) it is
// host-wide.
func (r remoteSink) SetAt(ctx context.Context, name, text string, pos contrib.Pos) {
	_ = r.conn.NotifyWithin(ctx, wire.NotifyStatusSet, wire.StatusUpdate{Name: name, Text: text, Pos: &pos})
}
func (r remoteSink) ClearAt(ctx context.Context, name string, pos contrib.Pos) {
	_ = r.conn.NotifyWithin(ctx, wire.NotifyStatusClear, wire.StatusUpdate{Name: name, Pos: &pos})
}
