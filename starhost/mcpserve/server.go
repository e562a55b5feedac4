// Package mcpserve serves a starhost.Host's plugin tools over the Model
// Context Protocol (MCP), with the official Go SDK. It uses only starhost's
// public API, so what `crystal-star mcp` does an embedder does in a few
// lines on its own host:
//
//	h, _ := starhost.New(starhost.Options{Dev: []string{"plugins/review"}})
//	h.Start(ctx)
//	go h.Watch(ctx)                    // hot reload: clients get list_changed
//	srv := mcpserve.New(h, mcpserve.Options{})
//	defer srv.Close()
//	err := srv.ServeStdio(ctx, os.Stdin, os.Stdout)
//
// tools/list and tools/call are answered from a fresh snapshot of the host's
// catalog every time, so a reload is seen at once, and every change of the
// catalog sends notifications/tools/list_changed. A tool's
// error(code, message) is a result with isError and the text "CODE: message";
// an unknown tool is a protocol error (invalid params).
package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
}

// Server serves one catalog of a host's tools over MCP. Create it after the
// host started; it is safe for concurrent use and serves any number of
// sessions (Run may be called once per transport).
type Server struct {
	h           *starhost.Host
	cat         starhost.Catalog
	srv         *mcp.Server
	unsubscribe func()
}

// New returns a server for h's catalog. It follows the host's catalog until
// Close.
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
	s := &Server{h: h, cat: opts.Catalog}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
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
	s.unsubscribe = h.SubscribePoints(func(inv starhost.Invalidation) {
		// A generation published or revoked (every point may have changed)
		// is what changes the tool catalog.
		if inv.Points == nil && inv.Thread == "" {
			s.listChanged()
		}
	})
	return s
}

// SDK returns the underlying MCP server, to add prompts or resources or to
// serve it over another transport (mcp.NewStreamableHTTPHandler).
func (s *Server) SDK() *mcp.Server { return s.srv }

// Close stops following the host's catalog. It does not close the host.
func (s *Server) Close() { s.unsubscribe() }

// Run serves one session over t until the client ends it or ctx ends; both
// are a clean end (nil).
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.srv.Run(ctx, t)
	if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		err = nil // shut down, or the client went away
	}
	return err
}

// ServeStdio serves newline-delimited JSON-RPC read from r and written to w
// (the MCP stdio transport) until the end of input or ctx ends. Every
// request read before the end of input is answered before it returns, even
// when two requests share an id; a request other than initialize or ping
// before initialize gets an Invalid Request error (-32600). A line that is
// no JSON gets a Parse error (-32700), one that is no JSON-RPC message (or
// an empty batch) an Invalid Request error, both with id null, and the
// session goes on.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	lw := &lockedWriter{w: w}
	return s.Run(ctx, drainTransport{&mcp.IOTransport{Reader: guardLines(r, lw), Writer: lw}})
}

// catalogChangedSentinel is added to and at once removed from the SDK's
// (unused) tool registry: the SDK's only way to send
// notifications/tools/list_changed, debounced into one notification.
const catalogChangedSentinel = "crystal-star-catalog-changed"

func (s *Server) listChanged() {
	s.srv.AddTool(&mcp.Tool{Name: catalogChangedSentinel, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	s.srv.RemoveTools(catalogChangedSentinel)
}

// list is the catalog now, in catalog order.
func (s *Server) list() *mcp.ListToolsResult {
	// TTL 0: the list may change with the next save of a plugin.
	res := &mcp.ListToolsResult{Tools: []*mcp.Tool{}, Cacheable: mcp.Cacheable{CacheScope: "public"}}
	for _, t := range starhost.MCPTools(s.h.Tools(s.cat).List()) {
		tool := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if t.ReadOnly {
			tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
		}
		res.Tools = append(res.Tools, tool)
	}
	return res
}

// call invokes one tool through a fresh snapshot.
func (s *Server) call(ctx context.Context, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
	res := s.h.Tools(s.cat).Invoke(ctx, p.Name, starhost.Arguments(p.Arguments))
	if res.Err != nil && res.Err.Code == "unknown_tool" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", p.Name)}
	}
	out := &mcp.CallToolResult{IsError: !res.OK(), Content: []mcp.Content{&mcp.TextContent{Text: starhost.ResultText(res)}}}
	if res.OK() && len(res.Parts) > 0 {
		out.Content = mcpContent(res.Parts) // MC1: image → image content
	}
	if res.OK() && res.Data != nil {
		if v, ok := jsonObject(res.Data); ok {
			out.StructuredContent = v
		}
	}
	return out, nil
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
