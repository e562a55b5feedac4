package mcpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of the Streamable HTTP sessions (HTTPOptions; docs/mcp.md).
const (
	// DefaultMaxSessions is how many HTTP sessions a server holds at once
	// when HTTPOptions.MaxSessions is zero.
	DefaultMaxSessions = 256
	// DefaultSessionIdleTimeout closes an HTTP session that received no
	// request for this long when HTTPOptions.SessionIdleTimeout is zero.
	DefaultSessionIdleTimeout = 30 * time.Minute
)

// sessionHeader names the HTTP session of a request (the SDK's header).
const sessionHeader = "Mcp-Session-Id"

// CodeTooManySessions is the JSON-RPC error code of a new session refused
// because every one of the MaxSessions sessions has a request in flight
// (HTTP 503). It is in the range JSON-RPC leaves to servers.
const CodeTooManySessions = -32001

// sessionLimiter holds the number of HTTP sessions of a server at most
// max. The SDK's handler keeps a session until its client deletes it or
// its idle timeout closes it, so a client that initializes and goes away —
// thousands of times — would otherwise grow the server without limit. A
// new session past the limit closes the least recently used session with
// no request in flight (its client gets 404 on its next request and, as
// the protocol says, starts a new session); when every session is busy the
// new one is refused with 503 and a JSON-RPC error (CodeTooManySessions).
type sessionLimiter struct {
	srv  *mcp.Server
	max  int
	next http.Handler

	mu      sync.Mutex
	clock   uint64 // orders uses: a higher tick is more recent
	use     map[string]*sessionUse
	opening int // new sessions being created, not yet listed
}

type sessionUse struct {
	tick     uint64
	inFlight int
	evicted  bool
	// version is the protocol version the session agreed at initialize,
	// looked up once (versionRead) when its initialize is answered.
	version     string
	versionRead bool
}

func newSessionLimiter(srv *mcp.Server, max int, next http.Handler) *sessionLimiter {
	return &sessionLimiter{srv: srv, max: max, next: next, use: map[string]*sessionUse{}}
}

func (l *sessionLimiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get(sessionHeader); id != "" {
		sessionVersion(r, l.begin(id))
		defer l.end(id)
		l.next.ServeHTTP(w, r)
		return
	}
	if r.Method != http.MethodPost { // only a POST without a session creates one
		l.next.ServeHTTP(w, r)
		return
	}
	victim, ok := l.admit()
	if !ok {
		writeRPCError(w, http.StatusServiceUnavailable, CodeTooManySessions,
			fmt.Sprintf("too many sessions: all %d have a request in flight; retry later", l.max))
		return
	}
	if victim != nil {
		_ = victim.Close() // idle: nothing in flight to wait for
	}
	l.next.ServeHTTP(w, r)
	l.mu.Lock()
	l.opening--
	if id := w.Header().Get(sessionHeader); id != "" {
		l.readVersion(id, l.touch(id)) // its initialize was answered
	}
	l.mu.Unlock()
}

// touch marks id used now; l.mu is held.
func (l *sessionLimiter) touch(id string) *sessionUse {
	u := l.use[id]
	if u == nil {
		u = &sessionUse{}
		l.use[id] = u
	}
	l.clock++
	u.tick = l.clock
	return u
}

// begin counts a request of session id in flight and returns the
// session's protocol version.
func (l *sessionLimiter) begin(id string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.touch(id)
	u.inFlight++
	return l.readVersion(id, u)
}

// readVersion returns the protocol version session id agreed at
// initialize, looking it up among the server's sessions the first time
// only (normally when its initialize is answered; a request that overtakes
// that, or names an unknown session, looks it up itself); l.mu is held.
func (l *sessionLimiter) readVersion(id string, u *sessionUse) string {
	if u.versionRead {
		return u.version
	}
	for ss := range l.srv.Sessions() {
		if ss.ID() != id {
			continue
		}
		if p := ss.InitializeParams(); p != nil {
			u.version, u.versionRead = p.ProtocolVersion, true
		}
		break
	}
	return u.version
}

func (l *sessionLimiter) end(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.touch(id)
	u.inFlight--
	if u.inFlight <= 0 && !l.live(id) {
		delete(l.use, id) // a request for an unknown or closed session
	}
}

// live reports whether the server still holds the HTTP session id.
func (l *sessionLimiter) live(id string) bool {
	for ss := range l.srv.Sessions() {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// admit makes room for a new session: it returns whether one may be
// created and, when the server is full, the idle session to close first.
func (l *sessionLimiter) admit() (*mcp.ServerSession, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.opening
	var victim *mcp.ServerSession
	var oldest uint64
	live := map[string]bool{}
	for ss := range l.srv.Sessions() {
		id := ss.ID()
		if id == "" { // stdio or stateless: not an HTTP session of ours
			continue
		}
		live[id] = true
		u := l.use[id]
		if u != nil && u.evicted {
			continue // being closed by another admit
		}
		n++
		if u != nil && u.inFlight > 0 {
			continue
		}
		tick := uint64(0) // never used since its initialize: the first to go
		if u != nil {
			tick = u.tick
		}
		if victim == nil || tick < oldest {
			victim, oldest = ss, tick
		}
	}
	for id, u := range l.use { // forget closed sessions
		if !live[id] && u.inFlight == 0 {
			delete(l.use, id)
		}
	}
	if n < l.max {
		l.opening++
		return nil, true
	}
	if victim == nil {
		return nil, false
	}
	if u := l.use[victim.ID()]; u != nil {
		u.evicted = true
	} else {
		l.use[victim.ID()] = &sessionUse{evicted: true}
	}
	l.opening++
	return victim, true
}

// writeRPCError answers with a JSON-RPC error (id null) and HTTP status.
func writeRPCError(w http.ResponseWriter, status int, code int64, msg string) {
	data, _ := json.Marshal(&jsonrpcErrorAnswer{Version: "2.0", Error: &jsonrpc.Error{Code: code, Message: msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

type jsonrpcErrorAnswer struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *jsonrpc.Error  `json:"error"`
}

// postFilter stands between a POST and the SDK's handler for three
// answers the SDK gives otherwise:
//
//   - A request for a method the SDK does not know gets HTTP 400 with a
//     plain-text body, before the request reaches the session; the filter
//     turns it into the JSON-RPC error the stdio transport gives (-32601,
//     with the request's id, HTTP 200), so a client over HTTP can match it
//     to its request like any other error.
//   - A call the client cancelled (notifications/cancelled) would still be
//     answered: MCP says it should not be. The filter withholds that
//     answer; the call's event stream then ends without it, as the stdio
//     transport drops it.
//   - A call reusing the id of a call in flight in its session would take
//     that call's stream (the SDK matches answers to streams by id); it is
//     refused with -32600, as over stdio, and the first is answered.
//
// Every other answer passes unchanged.
type postFilter struct {
	next  http.Handler
	calls *callsInFlight
}

func newCallsInFlight() *callsInFlight {
	empty := make(chan struct{})
	close(empty)
	return &callsInFlight{byKey: map[callKey]*callInFlight{}, empty: empty}
}

func (m postFilter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Body == nil {
		m.next.ServeHTTP(w, r)
		return
	}
	// The body is read first (the SDK reads it whole too, and refuses one
	// past MaxBodyBytes), so that a cancellation is known before the SDK
	// acts on it.
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	r.Body.Close()
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	msg, _ := jsonrpc.DecodeMessage(bytes.TrimSpace(body))
	req, _ := msg.(*jsonrpc.Request)
	session := r.Header.Get("Mcp-Session-Id")
	pw := &postWriter{ResponseWriter: w}
	switch {
	case req == nil || session == "":
	case req.IsCall():
		call := m.calls.start(session, req.ID)
		if call == nil {
			// The SDK matches answers to streams by id: a second request
			// with the id of one in flight would take the first's stream.
			writeAnswer(w, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: idInUse(req.ID)}})
			return
		}
		pw.call = call
		defer m.calls.end(session, call)
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			m.calls.cancel(session, idText(mustID(p.RequestID)))
		}
	}
	m.next.ServeHTTP(pw, r)
	if !pw.holding {
		return
	}
	if req != nil && req.IsCall() && strings.Contains(pw.held.String(), fmt.Sprintf("%q unsupported", req.Method)) {
		w.Header().Del("X-Content-Type-Options")
		writeAnswer(w, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("method not found: %q", req.Method)}})
		return
	}
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(pw.held.Bytes())
}

// writeAnswer writes one JSON-RPC answer as the POST's JSON body (HTTP 200).
func writeAnswer(w http.ResponseWriter, res *jsonrpc.Response) {
	data, _ := jsonrpc.EncodeMessage(res)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}

// idInUse is the refusal of a request reusing the id of one in flight.
func idInUse(id jsonrpc.ID) string {
	return fmt.Sprintf("request id %v is already in use by a request in flight", id.Raw())
}

// sessionVersion makes the session's protocol version (agreed at
// initialize) govern a request whose MCP-Protocol-Version header names an
// older one: the SDK decides by the header what a stream may carry (the
// priming event and the retry hint of SEP-1699 came with 2025-11-25),
// while the version is the session's. A client that negotiated 2025-11-25
// and sends an older header (the conformance suite's polling scenario
// does) gets the session's features; a newer header is left to the SDK to
// judge.
func sessionVersion(r *http.Request, version string) {
	if have := r.Header.Get("MCP-Protocol-Version"); have != "" && version > have && version < "2026-07-28" {
		r.Header.Set("MCP-Protocol-Version", version)
	}
}

// callsInFlight are the calls whose POST is open, by session and id: only
// those can be cancelled, so the set is bounded by the requests in flight.
type callsInFlight struct {
	mu        sync.Mutex
	byKey     map[callKey]*callInFlight
	cancelled atomic.Int64  // calls in byKey the client cancelled
	empty     chan struct{} // closed while byKey is empty
}

type callKey struct{ session, id string } // id as its JSON text

type callInFlight struct {
	id        string
	cancelled atomic.Bool
}

func idText(id jsonrpc.ID) string {
	data, _ := json.Marshal(id.Raw())
	return string(data)
}

// start records a call whose POST opened, or returns nil when a call with
// its id is in flight in the session.
func (c *callsInFlight) start(session string, id jsonrpc.ID) *callInFlight {
	call := &callInFlight{id: idText(id)}
	key := callKey{session, call.id}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey[key] != nil {
		return nil
	}
	if len(c.byKey) == 0 {
		c.empty = make(chan struct{})
	}
	c.byKey[key] = call
	return call
}

func (c *callsInFlight) end(session string, call *callInFlight) {
	c.mu.Lock()
	if call.cancelled.Load() {
		c.cancelled.Add(-1)
	}
	key := callKey{session, call.id}
	if c.byKey[key] == call {
		delete(c.byKey, key)
		if len(c.byKey) == 0 {
			close(c.empty)
		}
	}
	c.mu.Unlock()
}

func (c *callsInFlight) cancel(session, id string) {
	c.mu.Lock()
	if call := c.byKey[callKey{session, id}]; call != nil && !call.cancelled.Swap(true) {
		c.cancelled.Add(1)
	}
	c.mu.Unlock()
}

// waitEmpty waits until no call's POST is open — its answer written — or
// the deadline; it reports whether none is.
func (c *callsInFlight) waitEmpty(deadline time.Time) bool {
	c.mu.Lock()
	empty := c.empty
	c.mu.Unlock()
	select {
	case <-empty: // before the timer, which may be due already
		return true
	default:
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-empty:
		return true
	case <-timer.C:
		return false
	}
}

// cancelledAnswer reports whether data, a message about to be stored for
// session, answers a call the client cancelled: the event store keeps no
// such answer, so a client resuming the stream does not get it either.
func (c *callsInFlight) cancelledAnswer(session string, data []byte) bool {
	if c == nil || c.cancelled.Load() == 0 {
		return false
	}
	id, ok := answerID(data)
	if !ok {
		return false
	}
	c.mu.Lock()
	call := c.byKey[callKey{session, id}]
	c.mu.Unlock()
	return call != nil && call.cancelled.Load()
}

// answers reports whether event (one SSE event, or a JSON body) is the
// answer to the call.
func (call *callInFlight) answers(event []byte) bool {
	data := bytes.TrimSpace(event)
	if !bytes.HasPrefix(data, []byte("{")) {
		i := bytes.Index(data, []byte("data: "))
		if i < 0 || (i > 0 && data[i-1] != '\n') {
			return false
		}
		data = data[i+len("data: "):]
	}
	id, ok := answerID(data)
	return ok && id == call.id
}

// answerID returns the id, as its JSON text, of the JSON-RPC answer data;
// false when data is no answer (a request, a notification, not JSON).
func answerID(data []byte) (string, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(data, &m) != nil || m.Method != "" || m.ID == nil {
		return "", false
	}
	return idText(mustID(m.ID)), true
}

// mustID decodes a JSON-RPC id (a number or a string); anything else is
// the invalid id, whose text matches no call.
func mustID(raw json.RawMessage) jsonrpc.ID {
	var v any
	_ = json.Unmarshal(raw, &v)
	id, _ := jsonrpc.MakeID(v)
	return id
}

// postWriter holds back an answer that starts with HTTP 400 (a small
// plain-text error) so that postFilter can replace it, and drops the
// answer to a call the client cancelled; every other answer goes straight
// through, flushes included (event streams).
type postWriter struct {
	http.ResponseWriter
	call             *callInFlight
	started, holding bool
	held             bytes.Buffer
}

func (h *postWriter) WriteHeader(code int) {
	if !h.started {
		h.started = true
		if code == http.StatusBadRequest {
			h.holding = true
			return
		}
	}
	if !h.holding {
		h.ResponseWriter.WriteHeader(code)
	}
}

func (h *postWriter) Write(p []byte) (int, error) {
	if !h.started {
		h.WriteHeader(http.StatusOK)
	}
	if h.holding {
		return h.held.Write(p)
	}
	if h.call != nil && h.call.cancelled.Load() && h.call.answers(p) {
		return len(p), nil
	}
	return h.ResponseWriter.Write(p)
}

func (h *postWriter) Flush() {
	if !h.holding {
		h.started = true
		if f, ok := h.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (h *postWriter) Unwrap() http.ResponseWriter { return h.ResponseWriter }
