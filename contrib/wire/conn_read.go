package wire

import (
	"context"
	"encoding/binary"
	"time"
)

// Reading: Serve's reader, which serves the calls it reads, and take, which
// acts on each frame whoever reads it (conn_demand.go reads on demand).

// Serve reads frames until the stream ends or carries garbage and returns
// why. It does not fail the calls in flight: the owner learns the cause
// (the worker's exit status, a limit) and then calls Close with it.
//
// A call from the other side is served on the goroutine that read it, which
// then reads on (issue 26: no hand-off between goroutines, no new goroutine
// per call). Calls still run concurrently and nest: a call that calls the
// other side, or lasts longer than handOffAfter, hands reading to a new
// goroutine, so its callbacks' answers, a cancel and the next calls are
// read while it runs.
//
// On a channel that reads on demand (ReadOnDemand), Serve reads the first
// frame (the handshake), then listens to the bell; it returns once a read
// of the stream failed.
func (c *Conn) Serve() error {
	if c.demand != nil {
		return c.serveOnDemand()
	}
	c.end = make(chan error, 1)
	c.read()
	return <-c.end
}

// handOffAfter is how long a call of the other side runs on the reading
// goroutine before another goroutine takes over reading. On a worker's
// single processor the takeover waits for the call to yield or be
// preempted (10 ms at most), as a reader started at once would.
const handOffAfter = time.Millisecond

// read reads frames until the stream ends, then sends why on c.end. A call
// it reads it serves, then reads on — unless reading was handed over
// meanwhile (readerAway was cleared: handOff).
func (c *Conn) read() {
	// One timer per reader, armed for each call it serves: a timer made
	// and dropped per call cost each call an allocation and the timer
	// heap's work twice. Once it fires, this reader ends and the timer
	// with it.
	t := time.AfterFunc(time.Hour, func() {
		if c.takeReading() {
			c.read() // on the timer's own goroutine
		}
	})
	t.Stop()
	for {
		f, err := c.r.Read()
		if err != nil {
			c.end <- err
			return
		}
		in, _ := c.take(f, nil)
		if in == nil {
			continue
		}
		c.mu.Lock()
		c.readerAway = true
		c.mu.Unlock()
		t.Reset(c.handOffAfter)
		c.serveCall(in)
		t.Stop()
		if !c.takeReading() {
			return // another goroutine reads now
		}
	}
}

// handOff starts a new reader while the reader is away serving a call.
func (c *Conn) handOff() {
	if c.takeReading() {
		go c.read()
	}
}

// takeReading reports whether the reader was away serving a call: the
// caller reads from now on.
func (c *Conn) takeReading() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	away := c.readerAway
	c.readerAway = false
	return away
}

// incoming is a call of the other side, read and not yet served.
type incoming struct {
	ctx    context.Context
	id     uint64
	method string
	body   []byte
}

// take acts on one frame read: an answer goes to its caller (own: it
// answers self, the caller reading), a cancel cancels, a notification is
// delivered; a call of the other side is returned to be served.
func (c *Conn) take(f frame, self *waiter) (in *incoming, own bool) {
	if d := c.demand; d != nil {
		c.mu.Lock()
		d.first = false
		if f.Rung {
			d.debt--
		}
		c.mu.Unlock()
	}
	switch f.Kind {
	case kindCall, kindCallWithin:
		if c.bell != nil {
			c.serving.Add(1)
		}
		base, body := context.Background(), f.Body
		c.mu.Lock()
		if f.Kind == kindCallWithin && len(body) >= 8 {
			if origin := c.origins[binary.BigEndian.Uint64(body)]; origin != nil {
				// The values, not the deadline: the call in flight
				// bounds its callbacks through its own cancellation.
				base = context.WithoutCancel(origin)
			}
			body = body[8:]
		}
		ctx, cancel := context.WithCancel(context.WithValue(base, callKey{}, f.ID))
		c.running[f.ID] = cancel
		c.mu.Unlock()
		return &incoming{ctx: ctx, id: f.ID, method: f.Method, body: clone(body)}, false
	case kindReply, kindError:
		c.mu.Lock()
		w := c.pending[f.ID]
		delete(c.pending, f.ID)
		if w == nil && c.demand != nil && c.demand.abandoned[f.ID] {
			// The late answer: nothing comes within the call after it.
			delete(c.demand.abandoned, f.ID)
			delete(c.origins, f.ID)
		}
		c.mu.Unlock()
		if w == nil {
			break // an abandoned call's answer: nobody reads the body
		}
		f.Body = clone(f.Body)
		if w == self {
			self.ch <- f
			return nil, true
		}
		w.ch <- f
	case kindCancel:
		c.mu.Lock()
		cancel := c.running[f.ID]
		c.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	case kindNotify:
		ctx, live, abandoned := c.within(f.ID)
		switch {
		case !live:
		case f.Method == notifyProgress && abandoned:
			// Its receiver's call has returned.
		case f.Method == notifyProgress:
			c.deliverProgress(ctx, f.Body)
		case c.notify != nil:
			c.notify(ctx, f.Method, f.Body)
		}
	}
	return nil, false
}
