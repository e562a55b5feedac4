package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTransport makes the stdio transport answer every request read before
// the end of input before it reports that end (the SDK drops the
// connection, unanswered requests included, at EOF), fails our own
// requests to the client (sampling) at that end since no answer can come,
// answers a request reusing the id of one in flight and requests sent
// before initialize with a proper JSON-RPC error, and leaves a request the
// client cancelled unanswered (the SDK answers it).
type drainTransport struct {
	mcp.Transport
	// conn, when set, receives the connection made, so a shutdown can
	// wait for its answers to be written (answered).
	conn chan<- *drainConn
}

func (t drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	dc := &drainConn{Connection: c, pending: map[jsonrpc.ID]bool{}, outgoing: map[jsonrpc.ID]bool{},
		cancelled: map[jsonrpc.ID]bool{}, wake: make(chan struct{}), closed: make(chan struct{})}
	if t.conn != nil {
		t.conn <- dc
	}
	return dc, nil
}

// answered waits until every request read was answered (its answer
// written, or dropped as cancelled), or the deadline: a handler that
// returned has not necessarily had its answer written yet.
func (c *drainConn) answered(deadline time.Time) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		c.mu.Lock()
		n, wake := len(c.pending), c.wake
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-wake:
		case <-timer.C:
			return
		}
	}
}

type drainConn struct {
	mcp.Connection
	mu sync.Mutex
	// pending holds the ids of requests read and not yet answered. A set,
	// not a count: a second request with an id in flight is refused here,
	// so each id is answered once.
	pending map[jsonrpc.ID]bool
	// outgoing holds the ids of our requests to the client not yet
	// answered; cancelled the pending requests the client cancelled.
	outgoing, cancelled map[jsonrpc.ID]bool
	wake                chan struct{} // closed and replaced when pending or outgoing changes
	eof                 bool          // the input ended
	endMsg              jsonrpc.Message
	endErr              error // how the input ended, reported again on every Read
	initialized         bool  // an initialize request was read
	closeOnce           sync.Once
	closed              chan struct{}
}

// beforeInitialize are the calls a client may make before initialize.
var beforeInitialize = map[string]bool{"initialize": true, "ping": true}

// errNoAnswer answers our requests still open at the end of input.
var errNoAnswer = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the client closed its input before answering"}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		c.mu.Lock()
		eof := c.eof
		c.mu.Unlock()
		if eof { // the transport reports its end once; a second Read would block
			return c.drain(ctx, c.endMsg, c.endErr)
		}
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return c.drain(ctx, msg, err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			c.mu.Lock()
			delete(c.outgoing, m.ID)
			c.mu.Unlock()
		case *jsonrpc.Request:
			if !m.IsCall() {
				if m.Method == "notifications/cancelled" {
					c.cancel(m.Params)
				}
				return msg, nil
			}
			if refusal := c.admit(m); refusal != nil {
				if err := c.Connection.Write(ctx, refusal); err != nil {
					return nil, err
				}
				continue
			}
		}
		return msg, nil
	}
}

// admit records a request read, or returns the error answer that refuses
// it: before initialize, or with the id of a request in flight.
func (c *drainConn) admit(req *jsonrpc.Request) *jsonrpc.Response {
	c.mu.Lock()
	defer c.mu.Unlock()
	var msg string
	switch {
	case !c.initialized && !beforeInitialize[req.Method]:
		// The SDK would answer with error code 0, which is no JSON-RPC code.
		msg = fmt.Sprintf("method %q is invalid before initialize", req.Method)
	case c.pending[req.ID]:
		// The SDK would answer with id null, which the client cannot match.
		msg = idInUse(req.ID)
	default:
		c.initialized = c.initialized || req.Method == "initialize"
		c.pending[req.ID] = true
		return nil
	}
	return &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}}
}

// cancel records that the client cancelled a request in flight: MCP asks
// the receiver not to answer it. The SDK still cancels its handler.
func (c *drainConn) cancel(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	c.mu.Lock()
	if c.pending[id] {
		c.cancelled[id] = true
	}
	c.mu.Unlock()
}

// signal wakes drain; c.mu is held.
func (c *drainConn) signal() {
	close(c.wake)
	c.wake = make(chan struct{})
}

// drain runs at the end of input: it fails our requests to the client, then
// waits until every pending request was answered, ctx ended or the
// connection closed, and reports the end.
func (c *drainConn) drain(ctx context.Context, msg jsonrpc.Message, err error) (jsonrpc.Message, error) {
	for {
		c.mu.Lock()
		c.eof, c.endMsg, c.endErr = true, msg, err
		for id := range c.outgoing {
			delete(c.outgoing, id)
			c.mu.Unlock()
			return &jsonrpc.Response{ID: id, Error: errNoAnswer}, nil
		}
		n, wake := len(c.pending), c.wake
		c.mu.Unlock()
		if n == 0 {
			return msg, err
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return msg, err
		case <-c.closed:
			return msg, err
		}
	}
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			c.mu.Lock()
			c.outgoing[m.ID] = true
			if c.eof {
				c.signal()
			}
			c.mu.Unlock()
		}
	case *jsonrpc.Response:
		c.mu.Lock()
		drop := c.cancelled[m.ID]
		delete(c.cancelled, m.ID)
		c.mu.Unlock()
		var err error
		if !drop {
			err = c.Connection.Write(ctx, msg)
		}
		c.mu.Lock()
		if c.pending[m.ID] {
			delete(c.pending, m.ID)
			c.signal()
		}
		c.mu.Unlock()
		return err
	}
	return c.Connection.Write(ctx, msg)
}

func (c *drainConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}
