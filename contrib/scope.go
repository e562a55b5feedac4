package contrib

import (
	"context"
	"sync"
)

// SessionScope is the agent session a callback serves: the facts its ctx carries
// and the state that belongs to that session rather than to the plugin
// generation (status values, model clients). The host binds it to the
// context of every call it makes on a session's behalf (WithSession); a
// callback run where no session is served (attach, timers) has none and
// sees the host-wide facts from Services. Optional capabilities (the
// session and review views, model epochs, a status overlay) are further
// interfaces a SessionScope may implement, as with Services.
type SessionScope interface {
	// Facts returns the facts of the session served (CC7).
	Facts() Facts
	// Locals is the session's per-plugin state store for the host side
	// (cached model clients), dropped when the session ends.
	Locals() *Locals
}

type scopeKey struct{}

// WithSession returns ctx carrying s: every callback run under it serves s.
func WithSession(ctx context.Context, s SessionScope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// SessionFrom returns the session ctx serves, or nil where none is served.
func SessionFrom(ctx context.Context) SessionScope {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Value(scopeKey{}).(SessionScope)
	return s
}

// FactsSession is a SessionScope of facts only: what a worker process knows of the
// session a call serves (the facts travel with each call).
type FactsSession struct {
	F      Facts
	locals Locals
}

// Facts implements SessionScope.
func (s *FactsSession) Facts() Facts { return s.F }

// Locals implements SessionScope.
func (s *FactsSession) Locals() *Locals { return &s.locals }

// Locals is a small concurrent map of state kept for one session, keyed by
// whatever the owner chooses (a generation and a feature name). The zero
// value is ready to use.
type Locals struct {
	mu sync.Mutex
	m  map[any]any
}

// Get returns the value under key, creating it with mk on first use.
func (l *Locals) Get(key any, mk func() any) any {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.m[key]; ok {
		return v
	}
	if l.m == nil {
		l.m = map[any]any{}
	}
	v := mk()
	l.m[key] = v
	return v
}

// Clear drops every value (the session ended).
func (l *Locals) Clear() {
	l.mu.Lock()
	l.m = nil
	l.mu.Unlock()
}

// FactsFor returns the facts of the session ctx serves, else the host-wide
// facts of svc (nil: none): what a callback run under ctx sees on its ctx.
func FactsFor(ctx context.Context, svc Services) Facts {
	if s := SessionFrom(ctx); s != nil {
		return s.Facts()
	}
	if svc == nil {
		return Facts{}
	}
	return svc.Facts()
}
