package mcpserve

import (
	"context"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the Streamable HTTP transport. The zero value
// accepts loopback clients only, with no token.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// ("Authorization: Bearer TOKEN"); others get 401. Required by the CLI
	// whenever the address is not loopback.
	Token string
	// AllowedHosts are host names (no port) accepted in the Host and Origin
	// headers besides the loopback names. A browser page on another host
	// (DNS rebinding, cross-site requests) is refused with 403.
	AllowedHosts []string
	// Path is where the endpoint is served; "" is "/mcp".
	Path string
	// MaxSessions bounds the HTTP sessions held at once (0:
	// DefaultMaxSessions). A new session past it closes the least recently
	// used session with no request in flight, or, when all are busy, is
	// refused with 503 and a JSON-RPC error (CodeTooManySessions).
	MaxSessions int
	// SessionIdleTimeout closes a session that received no request for
	// this long (0: DefaultSessionIdleTimeout); its client gets 404 and
	// starts a new session.
	SessionIdleTimeout time.Duration
	// PollAfter, when set, closes the event stream of a call still running
	// after this long, with a retry hint (PollRetry): the client resumes the
	// stream with Last-Event-ID (GET) and gets the answer there — SEP-1699
	// polling, so a long call holds no connection open (through proxies and
	// load balancers with idle limits). 0: a call's stream stays open until
	// its answer.
	PollAfter time.Duration
}

// PollRetry is the retry hint sent when PollAfter closes a call's stream.
const PollRetry = 10 * time.Millisecond

// MaxBodyBytes bounds the body of one HTTP request: a longer one is refused
// with 413 (the SDK's default limit, set explicitly).
const MaxBodyBytes = mcp.DefaultMaxRequestBodyBytes

// Handler returns the MCP Streamable HTTP handler (the SDK's) for this
// server at opts.Path, behind the Host/Origin checks and the bearer token.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	path := opts.Path
	if path == "" {
		path = "/mcp"
	}
	// The guard checks Host and Origin for every address, with the allowed
	// hosts; the SDK's own check (loopback addresses only, no allowed
	// hosts) would refuse an allowed name reached through loopback.
	// The event store (in memory, bounded by the SDK) makes event streams
	// resumable: a client that lost its connection reconnects with
	// Last-Event-ID and gets what it missed (the priming event of SEP-1699);
	// it also orders a cancelled sampling request's notice before the
	// answer of the call it served (watchingStore).
	// The SDK closes a session idle for SessionTimeout itself (no request
	// in flight: a POST pauses its timer); the limiter bounds their number.
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.SessionIdleTimeout <= 0 {
		opts.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	s.pollAfter.Store(int64(opts.PollAfter))
	calls := newCallsInFlight()
	s.httpCalls.Store(calls)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv },
		&mcp.StreamableHTTPOptions{DisableLocalhostProtection: true, EventStore: watchingStore{mcp.NewMemoryEventStore(nil), calls},
			SessionTimeout: opts.SessionIdleTimeout, MaxRequestBodyBytes: MaxBodyBytes})
	mux := http.NewServeMux()
	mux.Handle(path, newSessionLimiter(s.srv, opts.MaxSessions, postFilter{next: mcpHandler, calls: calls}))
	return guard{next: mux, opts: opts}
}

// guard refuses what the endpoint must not serve: a Host or Origin that is
// neither loopback nor allowed (403), a missing or wrong token (401).
type guard struct {
	next http.Handler
	opts HTTPOptions
}

func (g guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.allowedHost(hostOnly(r.Host)) {
		http.Error(w, "forbidden: Host "+r.Host+" is not allowed", http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || !g.allowedHost(u.Hostname()) {
			http.Error(w, "forbidden: Origin "+origin+" is not allowed", http.StatusForbidden)
			return
		}
	}
	if g.opts.Token != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(g.opts.Token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="crystal-star"`)
			http.Error(w, "unauthorized: a bearer token is required", http.StatusUnauthorized)
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

func (g guard) allowedHost(host string) bool {
	return IsLoopback(host) || slices.ContainsFunc(g.opts.AllowedHosts, func(h string) bool { return strings.EqualFold(h, host) })
}

// hostOnly strips the port of a Host header value.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// IsLoopback reports whether host (a name or an IP, no port) is this
// machine's loopback: "localhost" or a loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeStreamableHTTP serves the Streamable HTTP transport on ln until ctx
// ends, then shuts down gracefully: it stops accepting, closes the HTTP
// sessions (ending their event streams) and waits up to shutdownGrace for
// requests in flight, then closes what is left. A clean shutdown returns
// nil.
func (s *Server) ServeStreamableHTTP(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	hs := &http.Server{Handler: s.Handler(opts), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Shutdown stops accepting and waits for the requests in flight (their
	// POSTs); the requests themselves get finishGrace to end, are then
	// cancelled and answered with an error. Closing a session then ends its
	// event streams, which Shutdown would wait for; it waits for the
	// answers being written. Only HTTP sessions (those with an id) are
	// closed: a stdio session of the same server goes on. All within
	// shutdownGrace, then what is left is closed.
	start := time.Now()
	sctx, cancel := context.WithDeadline(context.Background(), start.Add(shutdownGrace))
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(sctx) }()
	isHTTP := func(ss *mcp.ServerSession) bool { return ss != nil && ss.ID() != "" }
	s.flight.end(isHTTP, start.Add(finishGrace), start.Add(shutdownGrace))
	// A handler that returned has its answer still to be written by the
	// SDK, on the call's stream: closing the session first would drop it.
	if calls := s.httpCalls.Load(); calls != nil {
		calls.waitEmpty(start.Add(shutdownGrace))
	}
	go func() {
		for ss := range s.srv.Sessions() {
			if isHTTP(ss) {
				_ = ss.Close()
			}
		}
	}()
	err := <-shut
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
