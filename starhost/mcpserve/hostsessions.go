package mcpserve

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

// hostSessions gives each MCP session its own host session
// (starhost.Session): its own facts, session model (a sampling client of
// its own) and status values. A stdio server has one MCP session and so
// one host session; a Streamable HTTP server one per client session. The
// host session starts with the MCP session's first request and ends when
// the MCP session does. What no MCP session asks for (the catalog mirror)
// is served by the server's own session.
type hostSessions struct {
	h          *starhost.Host
	opts       starhost.SessionOptions
	sessionFor func(string) *starhost.Session // Options.SessionFor
	own        *starhost.Session              // the mirror's: listings made outside a request

	mu sync.Mutex
	m  map[*mcp.ServerSession]*starhost.Session
}

func newHostSessions(h *starhost.Host, opts starhost.SessionOptions, sessionFor func(string) *starhost.Session) *hostSessions {
	own, err := h.NewSession(context.Background(), opts)
	if err != nil { // a closed host: listings are empty either way
		own = nil
	}
	return &hostSessions{h: h, opts: opts, sessionFor: sessionFor, own: own, m: map[*mcp.ServerSession]*starhost.Session{}}
}

// of returns the host session of ss, starting it on first use; nil ss is
// the server's own.
func (hs *hostSessions) of(ctx context.Context, ss *mcp.ServerSession) *starhost.Session {
	if ss == nil {
		return hs.own
	}
	if hs.sessionFor != nil {
		if s := hs.sessionFor(ss.ID()); s != nil {
			return s // the embedder's: it ends it
		}
	}
	hs.mu.Lock()
	s, ok := hs.m[ss]
	hs.mu.Unlock()
	if ok {
		return s
	}
	opts := hs.opts
	opts.Facts.SessionID = ss.ID()
	s, err := hs.h.NewSession(context.WithoutCancel(ctx), opts)
	if err != nil {
		return hs.own
	}
	hs.mu.Lock()
	if prev, ok := hs.m[ss]; ok { // another request of ss started one first
		hs.mu.Unlock()
		s.End(context.Background())
		return prev
	}
	hs.m[ss] = s
	hs.mu.Unlock()
	go func() { // the MCP session's end is the host session's
		_ = ss.Wait()
		hs.end(ss)
	}()
	return s
}

func (hs *hostSessions) end(ss *mcp.ServerSession) {
	hs.mu.Lock()
	s, ok := hs.m[ss]
	delete(hs.m, ss)
	hs.mu.Unlock()
	if ok {
		s.End(context.Background())
	}
}

// close ends every host session (the server closes).
func (hs *hostSessions) close() {
	hs.mu.Lock()
	all := hs.m
	hs.m = map[*mcp.ServerSession]*starhost.Session{}
	hs.mu.Unlock()
	for _, s := range all {
		s.End(context.Background())
	}
	if hs.own != nil {
		hs.own.End(context.Background())
	}
}

// Session returns the host session that serves the MCP session ss (nil:
// the server's own, which serves listings made outside any request),
// starting it when ss made no request yet. An embedder reads its status
// line or changes its facts through it.
func (s *Server) Session(ss *mcp.ServerSession) *starhost.Session {
	return s.sessions.of(context.Background(), ss)
}
