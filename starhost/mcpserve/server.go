// Package mcpserve serves a starhost.Host over the Model Context Protocol
// (MCP), with the official Go SDK, on stdio or Streamable HTTP. It uses only
// starhost's public API, so what `crystal-star mcp` does an embedder does in
// a few lines on its own host:
//
//	srv := mcpserve.New(h, mcpserve.Options{})  // h started, h.Watch running
//	defer srv.Close()
//	err := srv.ServeStdio(ctx, os.Stdin, os.Stdout)
//
// What is served (docs/mcp.md):
//   - tools: the host's catalog, listed in catalog order (CC6) and called
//     through a fresh snapshot, so a reload is seen at once. A tool's
//     error(code, message) is a result with isError and "CODE: message";
//     an unknown tool is a protocol error (invalid params).
//   - prompts: every markdown and plugin command and alias /name reaches;
//     prompts/get returns the command's input as one user message.
//   - resources: the skills (skill://NAME, the SKILL.md text) and what
//     plugins publish through the resource_publisher point.
//   - logging: notes passed to Note become notifications/message.
//   - progress: ctx.progress in a tool becomes notifications/progress.
//
// The catalogs are mirrored into the SDK's own registries (AddTool,
// AddPrompt, AddResource and their removals) whenever the host publishes or
// revokes a generation, and only what differs is touched: the SDK then
// sends exactly one list_changed per change and none when nothing listed
// changed.
package mcpserve

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

// Options configure a Server. The zero value serves both catalogs as
// "crystal-star" at starhost.Version.
type Options struct {
	// Catalog is the catalog served; zero means starhost.PlanAndWork.
	Catalog starhost.Catalog
	// Name and Version are the server's implementation info.
	Name, Version string
	// Session is what each MCP session's host session starts from (its
	// facts, its model: mcp --sampling makes the MCP client's model the
	// session model, SamplingFacts). Each MCP session gets a host session
	// of its own; its session id is the MCP session's id.
	Session starhost.SessionOptions
	// SessionFor, when set, chooses the host session of the MCP session
	// of that id instead (nil from it: one of its own, as without it) — a
	// server of one agent session whose other processes share that
	// session. The embedder ends what it returns.
	SessionFor func(mcpSessionID string) *starhost.Session
}

// Server serves one catalog of a host's tools, its commands as prompts and
// its skills as resources over MCP. Create it after the host started; it is
// safe for concurrent use and serves any number of sessions (Run may be
// called once per transport, the HTTP handler serves many).
type Server struct {
	h           *starhost.Host
	sessions    *hostSessions
	cat         starhost.Catalog
	srv         *mcp.Server
	unsubscribe func()

	kick chan struct{} // a catalog may have changed: the syncer mirrors it
	stop chan struct{}
	done chan struct{}

	mu     sync.Mutex // guards the mirrors; held for a whole sync
	mirror mirrors
	// contents holds a digest of each listed resource's contents, to tell
	// its subscribers when a sync finds it changed.
	contents map[string]string
	closed   sync.Once
	// flight holds the requests being handled, for a shutdown to end them.
	flight *inFlight
	// pollAfter is HTTPOptions.PollAfter of the HTTP handler (0: never).
	pollAfter atomic.Int64
	// httpCalls are the HTTP handler's calls whose POST is open.
	httpCalls atomic.Pointer[callsInFlight]
}

// New returns a server for h's catalog. It follows the host's catalogs
// until Close.
func New(h *starhost.Host, opts Options) *Server {
	if opts.Catalog == 0 {
		opts.Catalog = starhost.PlanAndWork
	}
	if opts.Name == "" {
		opts.Name = "crystal-star"
	}
	if opts.Version == "" {
		opts.Version = starhost.Version
	}
	s := &Server{h: h, sessions: newHostSessions(h, opts.Session, opts.SessionFor), cat: opts.Catalog, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		mirror: newMirrors(), contents: map[string]string{}, flight: newInFlight()}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Logging:     &mcp.LoggingCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
		},
		CompletionHandler:  s.complete,
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	s.srv.AddReceivingMiddleware(s.flight.middleware, s.cacheFieldsMiddleware, s.toolsMiddleware)
	s.sync()
	s.unsubscribe = h.Subscribe(func(c starhost.Change) {
		// A generation published or revoked, or the external tools changed:
		// what changes the catalogs.
		if c.Catalog {
			select {
			case s.kick <- struct{}{}:
			default: // a sync is already due; it will see this change too
			}
		}
	})
	go s.syncLoop()
	return s
}

// SDK returns the underlying MCP server, to add more prompts or resources
// or to serve it over another transport.
func (s *Server) SDK() *mcp.Server { return s.srv }

// Close stops following the host's catalogs and ends the host sessions of
// its MCP sessions. It does not close the host.
func (s *Server) Close() {
	s.closed.Do(func() {
		s.unsubscribe()
		close(s.stop)
		<-s.done
		s.sessions.close()
	})
}

// syncLoop mirrors the host's catalogs after each change, off the host's
// publishing path: a burst of reloads coalesces into one sync.
func (s *Server) syncLoop() {
	defer close(s.done)
	for {
		select {
		case <-s.stop:
			return
		case <-s.kick:
			s.sync()
		}
	}
}

// Sync mirrors the host's catalogs into the SDK's registries now. The
// server does it by itself after every reload; an embedder calls it after
// changing what is listed without a reload (markdown commands, skills).
func (s *Server) Sync() { s.sync() }

func (s *Server) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncTools()
	s.syncPrompts()
	s.syncResources()
}

// Run serves one session over t until the client ends it or ctx ends; both
// are a clean end (nil).
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return cleanEnd(s.srv.Run(ctx, t))
}

// ServeStdio serves newline-delimited JSON-RPC read from r and written to w
// (the MCP stdio transport) until the end of input or ctx ends. Every
// request read before the end of input is answered before it returns; a
// request of ours still waiting for the client then (sampling) fails at
// once, as no answer can come. A request reusing the id of one in flight
// gets an Invalid Request error (-32600) with that id, and a request the
// client cancelled gets no answer. A request other than initialize or ping
// before initialize gets an Invalid Request error. A line that is no JSON
// gets a Parse error (-32700), one that is no JSON-RPC message (or an empty
// batch) or longer than MaxLineBytes an Invalid Request error, all with id
// null, and the session goes on.
//
// When ctx ends (the CLI: SIGINT, SIGTERM), requests in flight get 4 s to
// end, are then cancelled and answered with an error, and ServeStdio
// returns within 5 s.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	lw := &lockedWriter{w: w}
	conn := make(chan *drainConn, 1)
	ss, err := s.srv.Connect(ctx, drainTransport{Transport: &mcp.IOTransport{Reader: guardLines(r, lw), Writer: lw,
		// guardLines bounds a line; the SDK's limit counts read-ahead too.
		MaxLineLength: 2 * MaxLineBytes}, conn: conn}, nil)
	if err != nil {
		return err
	}
	dc := <-conn
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		return cleanEnd(err)
	case <-ctx.Done():
	}
	start := time.Now()
	s.flight.end(func(x *mcp.ServerSession) bool { return x == ss }, start.Add(finishGrace), start.Add(shutdownGrace))
	dc.answered(start.Add(shutdownGrace)) // a returned handler's answer may not be written yet
	go ss.Close()                         // waits for the answers being written, then closes
	select {
	case <-ended:
	case <-time.After(time.Until(start.Add(shutdownGrace))):
	}
	return nil
}

// cleanEnd is nil for the ends of a session that are no failure: shut
// down, or the client went away.
func cleanEnd(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}
