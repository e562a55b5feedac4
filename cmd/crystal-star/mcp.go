package main

import (
	"context"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

// mcpTokenEnv names the environment variable holding the bearer token of
// `mcp --http`; it is required when the address is not loopback.
const mcpTokenEnv = "CRYSTAL_MCP_TOKEN"

var mcpCmd = command{name: "mcp", summary: "serve the plugins over MCP on stdin/stdout, or over Streamable HTTP",
	flags: []flagSpec{{"catalog", "plan|work", "only the tools of one catalog"},
		{"http", "ADDR", "serve Streamable HTTP on ADDR (loopback by default; " + mcpTokenEnv + " required off loopback)"},
		{"allow-host", "NAMES", "more Host/Origin names to accept with --http, comma-separated"},
		{"poll-after", "DUR", "with --http, close a call's event stream after DUR (e.g. 30s) and let the client resume it for the answer (SEP-1699 polling)"},
		{"sampling", "", "the session model of plugins is the MCP client's model (sampling/createMessage)"}},
	example: "mcp --dev plugins", run: runMCP}

// runMCP starts the host, watches its plugin directories and serves the
// catalog over stdin/stdout (starhost/mcpserve) until the end of input, or
// over Streamable HTTP with --http; SIGINT/SIGTERM are a clean shutdown
// with exit 0. Notes go to stderr and to the MCP clients as log messages.
// With --sampling the session model of plugins is the MCP client's model.
// The host is closed by run's e.close.
func runMCP(e *env, args []string) error {
	f, err := e.flags(args)
	if err != nil {
		return err
	}
	if len(f.args) > 0 {
		return usagef("mcp takes no arguments")
	}
	cat, err := catalogFlag(f)
	if err != nil {
		return err
	}
	addr, useHTTP := f.set["http"]
	var httpOpts mcpserve.HTTPOptions
	if useHTTP {
		if addr, httpOpts, err = mcpHTTPOptions(addr, f.set["allow-host"]); err != nil {
			return err
		}
		if v, ok := f.set["poll-after"]; ok {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return usagef("mcp --poll-after %s: want a positive duration such as 30s", v)
			}
			httpOpts.PollAfter = d
		}
	} else if _, ok := f.set["poll-after"]; ok {
		return usagef("mcp --poll-after needs --http")
	}
	var served atomic.Pointer[mcpserve.Server]
	e.forward = func(n starhost.Note) {
		if s := served.Load(); s != nil {
			s.Note(n)
		}
	}
	e.ask = mcpserve.Elicitation() // ctx.ask: elicitation/create to the client that called
	_, sampling := f.set["sampling"]
	if sampling { // the session model is the MCP client's (sampling/createMessage)
		e.models = mcpserve.SamplingModels()
	}
	agent := e.liveSession()
	h, err := e.start()
	if err != nil {
		return err
	}
	if agent != nil {
		if stop := e.serveLive(h, agent); stop != nil {
			defer stop()
		}
	}
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	watchDone := make(chan error, 1)
	watching := make(chan struct{})
	var once sync.Once
	go func() { watchDone <- h.Watch(ctx, func() { once.Do(func() { close(watching) }) }) }()
	select {
	case <-watching:
	case err := <-watchDone:
		return err
	}
	// serverInfo.version is the host's version (starhost.Version), the
	// one `crystal-star version` prints.
	// Each MCP session is a host session of its own; with --sampling its
	// session model is its MCP client's.
	opts := mcpserve.Options{Catalog: cat}
	if agent != nil {
		// The live host of an agent session: its MCP clients and its hook
		// processes are the one agent session, one host session.
		opts.SessionFor = func(string) *starhost.Session {
			id := agent.session()
			if id == "" {
				return nil // no agent session bound yet: the MCP session's own
			}
			if s, err := agent.open(id, "", ""); err == nil {
				return s.HostSession(ctx)
			}
			return nil
		}
	}
	if sampling {
		opts.Session.Model = &mcpserve.SamplingFacts
	}
	srv := mcpserve.New(h, opts)
	defer srv.Close()
	served.Store(srv)
	if useHTTP {
		err = serveMCPHTTP(ctx, e, srv, addr, httpOpts)
	} else {
		err = srv.ServeStdio(ctx, e.stdin, e.stdout.unsanitised())
	}
	cancel()
	<-watchDone
	return err
}

// mcpHTTPOptions checks --http ADDR: an empty host binds loopback; any
// other host than loopback needs the token in $CRYSTAL_MCP_TOKEN, and is
// itself an allowed Host header (beside --allow-host, comma-separated).
func mcpHTTPOptions(addr, allow string) (string, mcpserve.HTTPOptions, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", mcpserve.HTTPOptions{}, usagef("mcp --http %s: want HOST:PORT or :PORT (%v)", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	opts := mcpserve.HTTPOptions{Token: os.Getenv(mcpTokenEnv)}
	for _, a := range strings.Split(allow, ",") {
		if a = strings.TrimSpace(a); a != "" {
			opts.AllowedHosts = append(opts.AllowedHosts, a)
		}
	}
	if !mcpserve.IsLoopback(host) {
		if opts.Token == "" {
			return "", opts, usagef("mcp --http %s is not loopback: set $%s to the bearer token clients must send", addr, mcpTokenEnv)
		}
		opts.AllowedHosts = append(opts.AllowedHosts, host)
	}
	return net.JoinHostPort(host, port), opts, nil
}

// serveMCPHTTP listens on addr, says where on stderr, and serves until ctx
// ends (a signal), then shuts down gracefully.
func serveMCPHTTP(ctx context.Context, e *env, srv *mcpserve.Server, addr string, opts mcpserve.HTTPOptions) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	e.stderrf("mcp: serving Streamable HTTP on http://%s/mcp\n", ln.Addr())
	return srv.ServeStreamableHTTP(ctx, ln, opts)
}
