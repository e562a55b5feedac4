package mcpserve

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTransport makes the stdio transport answer every request read before
// the end of input before it reports that end (the SDK drops the
// connection, unanswered requests included, at EOF), and answers requests
// sent before initialize with a proper JSON-RPC error code.
type drainTransport struct{ mcp.Transport }

func (t drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, pending: map[jsonrpc.ID]bool{}, idle: make(chan struct{}), closed: make(chan struct{})}, nil
}

type drainConn struct {
	mcp.Connection
	mu sync.Mutex
	// pending holds the ids of requests read and not yet answered. A set,
	// not a count: a client that reuses an id gets its answer, and the
	// answer ends the wait for both (a count would wait forever for a
	// second answer the SDK never sends).
	pending     map[jsonrpc.ID]bool
	idle        chan struct{} // closed and replaced when pending empties
	initialized bool          // an initialize request was read
	closeOnce   sync.Once
	closed      chan struct{}
}

// beforeInitialize are the calls a client may make before initialize.
var beforeInitialize = map[string]bool{"initialize": true, "ping": true}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			c.wait(ctx)
			return msg, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			return msg, nil
		}
		c.mu.Lock()
		early := !c.initialized && !beforeInitialize[req.Method]
		c.initialized = c.initialized || req.Method == "initialize"
		if !early {
			c.pending[req.ID] = true
		}
		c.mu.Unlock()
		if !early {
			return msg, nil
		}
		// The SDK would answer with error code 0, which is no JSON-RPC code.
		resp := &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("method %q is invalid before initialize", req.Method)}}
		if err := c.Connection.Write(ctx, resp); err != nil {
			return nil, err
		}
	}
}

// wait blocks until every pending request was answered, ctx ended or the
// connection closed.
func (c *drainConn) wait(ctx context.Context) {
	for {
		c.mu.Lock()
		n, idle := len(c.pending), c.idle
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		}
	}
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if c.pending[resp.ID] {
			delete(c.pending, resp.ID)
			if len(c.pending) == 0 {
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
