package worker

import (
	"context"
	"sync"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// callScope is the session a call to the worker serves, as the worker
// knows it: the facts that travelled with the call, and the host asked
// within the call (so it answers for that call's session) for the session
// views and the model epochs. Status values a worker's plugin sets are
// sent within the call too (remoteSink), so the host puts them on the line
// of the session that call serves.
type callScope struct {
	facts  contrib.Facts
	svc    *remoteServices
	ctx    context.Context
	locals *contrib.Locals
}

var (
	_ contrib.SessionScope   = (*callScope)(nil)
	_ builtins.SessionSource = (*callScope)(nil)
	_ builtins.ModelEpochs   = (*callScope)(nil)
)

func (c *callScope) Facts() contrib.Facts    { return c.facts }
func (c *callScope) Locals() *contrib.Locals { return c.locals }

func (c *callScope) views() sessionReply {
	var r sessionReply
	_ = c.svc.conn.Call(c.ctx, wire.MethodSession, nil, &r)
	return r
}

func (c *callScope) Session() *builtins.ModelFacts { return c.views().Session }
func (c *callScope) Review() *builtins.ReviewFacts { return c.views().Review }

func (c *callScope) ModelEpoch(role contrib.ModelRole) uint64 {
	var epoch uint64
	_ = c.svc.conn.Call(c.ctx, wire.MethodModelEpoch, role, &epoch)
	return epoch
}

// maxScopes bounds the sessions whose model clients a worker keeps.
const maxScopes = 1024

// scopeLocals keeps plugins' model clients per session the worker served,
// by the session's id and workspace: the other facts (the model, the
// modes) change within a session, and its clients outlive such changes
// until their epoch says otherwise (CC27). Epochs are unique across
// sessions, so sessions sharing an id never share a client.
type scopeLocals struct {
	mu sync.Mutex
	m  map[scopeKey]*contrib.Locals
}

type scopeKey struct{ session, workspace string }

// serving returns ctx carrying the session of a call that brought facts f.
func (s *remoteServices) serving(ctx context.Context, f contrib.Facts) context.Context {
	key := scopeKey{f.SessionID, f.Workspace}
	s.scopes.mu.Lock()
	l, ok := s.scopes.m[key]
	if !ok {
		if s.scopes.m == nil || len(s.scopes.m) >= maxScopes {
			s.scopes.m = map[scopeKey]*contrib.Locals{}
		}
		l = &contrib.Locals{}
		s.scopes.m[key] = l
	}
	s.scopes.mu.Unlock()
	return contrib.WithSession(ctx, &callScope{facts: f, svc: s, ctx: ctx, locals: l})
}

// scopeOf returns the session a host-side call under ctx serves, if any.
func scopeOf(ctx context.Context) contrib.SessionScope { return contrib.SessionFrom(ctx) }
