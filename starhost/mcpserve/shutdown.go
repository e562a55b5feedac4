package mcpserve

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The shutdown deadline (docs/mcp.md): on SIGINT, SIGTERM or the end of
// ServeStdio's or ServeStreamableHTTP's context, requests in flight get
// finishGrace to end by themselves; then they are cancelled — a tool
// waiting for the client's sampling answer too — and answered with an
// error, and answerGrace later the transport is closed whatever is left.
// The whole is shutdownGrace.
const (
	shutdownGrace = 5 * time.Second
	answerGrace   = time.Second
	finishGrace   = shutdownGrace - answerGrace
)

// errShuttingDown is the cause of a request cancelled by a shutdown.
var errShuttingDown = errors.New("the MCP server is shutting down")

// inFlight tracks the requests being handled, per session, so that a
// shutdown can wait for them, cancel them and wait for their answers. The
// SDK's own ServerSession.Close waits for handlers without cancelling
// them, which a tool blocked on the client's sampling answer never ends.
type inFlight struct {
	mu      sync.Mutex
	next    uint64
	reqs    map[uint64]flightReq
	changed chan struct{} // closed and replaced when a request ends
}

type flightReq struct {
	session *mcp.ServerSession
	cancel  context.CancelCauseFunc
}

func newInFlight() *inFlight {
	return &inFlight{reqs: map[uint64]flightReq{}, changed: make(chan struct{})}
}

// middleware registers every request while its handler runs, with a
// context a shutdown cancels.
func (f *inFlight) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ctx, cancel := context.WithCancelCause(ctx)
		f.mu.Lock()
		f.next++
		key := f.next
		f.reqs[key] = flightReq{session: sessionOf(req), cancel: cancel}
		f.mu.Unlock()
		defer func() {
			cancel(nil)
			f.mu.Lock()
			delete(f.reqs, key)
			close(f.changed)
			f.changed = make(chan struct{})
			f.mu.Unlock()
		}()
		return next(ctx, method, req)
	}
}

func sessionOf(req mcp.Request) *mcp.ServerSession {
	if req == nil {
		return nil
	}
	ss, _ := req.GetSession().(*mcp.ServerSession)
	return ss
}

// pending reports how many requests of the sessions match holds in flight,
// and a channel closed when one ends.
func (f *inFlight) pending(match func(*mcp.ServerSession) bool) (int, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.reqs {
		if match(r.session) {
			n++
		}
	}
	return n, f.changed
}

// waitUntil waits until no request of match is in flight, or the deadline.
func (f *inFlight) waitUntil(match func(*mcp.ServerSession) bool, deadline time.Time) bool {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		n, changed := f.pending(match)
		if n == 0 {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		}
	}
}

// end ends the requests of the sessions match holds: it waits for them
// until finishBy, cancels what is left (each handler then returns its
// error answer) and waits for those until answerBy.
func (f *inFlight) end(match func(*mcp.ServerSession) bool, finishBy, answerBy time.Time) {
	if f.waitUntil(match, finishBy) {
		return
	}
	f.mu.Lock()
	for _, r := range f.reqs {
		if match(r.session) {
			r.cancel(errShuttingDown)
		}
	}
	f.mu.Unlock()
	f.waitUntil(match, answerBy)
}
