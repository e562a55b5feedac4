package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

func init() {
	commands = append(commands, command{"mcp", "serve the plugins' tools over MCP on stdin/stdout: mcp [--catalog plan|work]", runMCP})
}

// mcpListChangedKinds are the lifecycle events that may change the tool
// catalog; each sends notifications/tools/list_changed to the client.
var mcpListChangedKinds = map[string]bool{
	"activated": true, "reloaded": true, "faulted": true, "blocked": true, "stopped": true,
}

func runMCP(e *env, args []string) error {
	f, err := parseFlags(args, nil, []string{"catalog"})
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
	in, ok := e.stdin.(io.ReadCloser)
	if !ok {
		in = io.NopCloser(e.stdin)
	}
	return serveMCP(e, cat, drainTransport{&mcp.IOTransport{Reader: in, Writer: nopWriteCloser{e.stdout}}})
}

// drainTransport answers every request read before the end of input before
// it reports that end, so requests piped from a file all get their
// responses (the SDK drops the connection, unanswered requests included, at
// EOF).
type drainTransport struct{ mcp.Transport }

func (t drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, idle: make(chan struct{}), closed: make(chan struct{})}, nil
}

type drainConn struct {
	mcp.Connection
	mu        sync.Mutex
	pending   int           // requests read and not yet answered
	idle      chan struct{} // closed and replaced when pending drops to 0
	closeOnce sync.Once
	closed    chan struct{}
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.IsCall() {
		c.mu.Lock()
		c.pending++
		c.mu.Unlock()
	}
	if err != nil {
		for {
			c.mu.Lock()
			n, idle := c.pending, c.idle
			c.mu.Unlock()
			if n == 0 {
				break
			}
			select {
			case <-idle:
			case <-ctx.Done():
				return nil, err
			case <-c.closed:
				return nil, err
			}
		}
	}
	return msg, err
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if c.pending > 0 {
			c.pending--
			if c.pending == 0 {
				close(c.idle)
				c.idle = make(chan struct{})
			}
		}
		c.mu.Unlock()
	}
	return err
}

func (c *drainConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpServer serves one catalog of a host's tools. Its tools/list and
// tools/call answers come from a fresh snapshot every time, so a reload is
// seen at once; the SDK's own tool registry stays empty.
type mcpServer struct {
	h   *starhost.Host
	cat starhost.Catalog
	srv *mcp.Server
}

// serveMCP starts the host, watches its plugin directories and serves the
// catalog over t until the client ends the session (EOF) or e's context is
// cancelled (Ctrl-C). The host is closed by the caller (run's e.close).
func serveMCP(e *env, cat starhost.Catalog, t mcp.Transport) error {
	var live atomic.Pointer[mcpServer]
	prev := e.events
	e.events = func(ev starhost.Event) {
		if prev != nil {
			prev(ev)
		}
		if s := live.Load(); s != nil && mcpListChangedKinds[ev.Kind] {
			s.listChanged()
		}
	}
	h, err := e.start()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	watchDone := make(chan error, 1)
	watching := make(chan struct{})
	var once sync.Once
	go func() { watchDone <- h.WatchReady(ctx, func() { once.Do(func() { close(watching) }) }) }()
	select {
	case <-watching:
	case err := <-watchDone:
		return err
	}
	s := newMCPServer(h, cat)
	live.Store(s)
	err = s.srv.Run(ctx, t)
	cancel()
	<-watchDone
	if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		err = nil // Ctrl-C or the client went away
	}
	return err
}

func newMCPServer(h *starhost.Host, cat starhost.Catalog) *mcpServer {
	s := &mcpServer{h: h, cat: cat}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "crystal-star", Version: "dev"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "tools/list":
				return s.list(), nil
			case "tools/call":
				if r, ok := req.(*mcp.CallToolRequest); ok {
					return s.call(ctx, r.Params)
				}
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// mcpReloadSentinel is added to and at once removed from the SDK's (unused)
// tool registry: the SDK's only way to send notifications/tools/list_changed,
// debounced into one notification.
const mcpReloadSentinel = "crystal-star-catalog-changed"

func (s *mcpServer) listChanged() {
	s.srv.AddTool(&mcp.Tool{Name: mcpReloadSentinel, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	s.srv.RemoveTools(mcpReloadSentinel)
}

// list is the catalog now, in catalog order.
func (s *mcpServer) list() *mcp.ListToolsResult {
	// TTL 0: the list may change with the next save of a plugin.
	res := &mcp.ListToolsResult{Tools: []*mcp.Tool{}, Cacheable: mcp.Cacheable{CacheScope: "public"}}
	for _, t := range s.h.Tools(s.cat).List() {
		schema := t.Parameters
		if len(schema) == 0 || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		tool := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: schema}
		if t.ReadOnly {
			tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
		}
		res.Tools = append(res.Tools, tool)
	}
	return res
}

// call invokes one tool through a fresh snapshot. An unknown tool is a
// protocol error (as the SDK answers); a tool's error(code, message) is a
// result with isError and the text "CODE: message".
func (s *mcpServer) call(ctx context.Context, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
	tools := s.h.Tools(s.cat)
	known := false
	for _, t := range tools.List() {
		known = known || t.Name == p.Name
	}
	if !known {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", p.Name)}
	}
	args := p.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	res := tools.Invoke(ctx, p.Name, args)
	switch {
	case res.Err != nil:
		return &mcp.CallToolResult{IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: res.Err.Code + ": " + res.Err.Message}}}, nil
	case len(res.Parts) > 0: // MC1: image → image content (content.go)
		return &mcp.CallToolResult{Content: mcpContent(res.Parts)}, nil
	case res.Data != nil:
		out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(res.Data)}}}
		if v, ok := jsonObject(res.Data); ok {
			out.StructuredContent = v
		}
		return out, nil
	default:
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Text}}}, nil
	}
}

// jsonObject reports whether data is a JSON object, which every protocol
// version accepts as structured content.
func jsonObject(data json.RawMessage) (map[string]any, bool) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}
