package wire

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
)

// Handler runs one call from the other side. Its result is sent back as
// JSON; an error is sent back as its message. ctx ends when the other side
// cancels the call or the channel closes. Each call runs on its own
// goroutine, so a handler may itself call the other side.
type Handler func(ctx context.Context, method string, body []byte) (any, error)

// Notifier receives one-way messages, in the order they were sent, on the
// reading goroutine: it must not block on the channel. ctx carries the
// values of this side's call the message was sent within (NotifyWithin),
// as a call made within it is served with them; a message sent outside any
// call gets context.Background().
type Notifier func(ctx context.Context, method string, body []byte)

// RemoteError is a call that the other side answered with an error.
type RemoteError struct{ Message string }

func (e *RemoteError) Error() string { return e.Message }

// Conn is one end of a worker channel: it sends calls and notifications and
// serves the other side's. It is safe for concurrent use.
type Conn struct {
	r      *frameReader
	handle Handler
	notify Notifier

	wmu  sync.Mutex
	w    io.Writer
	wbuf []byte
	// bell is what this side rings for a frame the other side may not be
	// reading for (RingOn); serving counts the other side's calls read and
	// not yet answered: while there is one, the other side reads.
	bell    io.Writer
	serving atomic.Int64

	mu      sync.Mutex
	next    uint64
	pending map[uint64]*waiter
	running map[uint64]context.CancelFunc
	// origins holds the contexts of this side's calls in flight: a call the
	// other side makes while serving one (kindCallWithin) is served with
	// its values, and so is a notification sent within one (NotifyWithin:
	// a progress report reaches the receiver its context carries). Reading
	// on demand, an abandoned call's origin stays until its late answer is
	// read (take) or the channel closes: what the other side sends within
	// it until then still belongs to that caller's session.
	origins map[uint64]context.Context
	closed  error
	// readerAway: the goroutine reading serves a call it read (Serve).
	readerAway   bool
	handOffAfter time.Duration
	end          chan error // the stream's end, from its last reader (Serve)
	// demand is the state of reading on demand (ReadOnDemand,
	// conn_demand.go); nil: Serve reads every frame.
	demand *demand
}

// waiter is a call of this side waiting for its answer.
type waiter struct {
	id uint64
	ch chan frame // the answer, kind 0 after Close, or kindLead
	// lead (under Conn.mu): the read side is this caller's, taken or
	// handed to it with kindLead.
	lead bool
}

// NewConn returns a channel end reading frames from r and writing to w.
// Serve must run for calls to be answered.
func NewConn(r io.Reader, w io.Writer, handle Handler, notify Notifier) *Conn {
	return &Conn{r: newReader(r), w: w, handle: handle, notify: notify, handOffAfter: handOffAfter,
		pending: map[uint64]*waiter{}, running: map[uint64]context.CancelFunc{}, origins: map[uint64]context.Context{}}
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

func (c *Conn) serveCall(in *incoming) {
	ctx, id := in.ctx, in.id
	out, err := c.handle(ctx, in.method, in.body)
	c.mu.Lock()
	if cancel := c.running[id]; cancel != nil {
		cancel()
		delete(c.running, id)
	}
	c.mu.Unlock()
	reply := frame{Kind: kindReply, ID: id}
	if err == nil {
		reply.Body, err = marshal(out)
	}
	if err != nil {
		reply = frame{Kind: kindError, ID: id, Body: []byte(err.Error())}
	}
	_ = c.write(reply, true) // a closed channel fails the caller's side anyway
}

// Close fails every call in flight and every later call with err, and
// cancels the calls this side is serving. Only the first Close counts.
func (c *Conn) Close(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed != nil {
		return
	}
	if err == nil {
		err = errors.New("worker channel closed")
	}
	c.closed = err
	if d := c.demand; d != nil {
		for id := range d.abandoned { // no late answer comes any more
			delete(c.origins, id)
		}
		clear(d.abandoned)
	}
	for id, w := range c.pending {
		select {
		case w.ch <- frame{}: // kind 0: failed by Close
		default: // it holds kindLead: it sees Close when it reads
		}
		delete(c.pending, id)
	}
	for id, cancel := range c.running {
		cancel()
		delete(c.running, id)
	}
	if c.demand != nil {
		c.interrupt() // a caller reading sees Close
	}
}

// Err returns the error Close recorded, or nil while the channel is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Call runs method on the other side with in as its JSON body and decodes
// the reply into out (nil: ignored). When ctx ends first the other side is
// asked to cancel and Call returns the context's cause. After Close, Call
// returns the error Close recorded.
func (c *Conn) Call(ctx context.Context, method string, in, out any) error {
	body, err := marshal(in)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if c.closed != nil {
		c.mu.Unlock()
		return c.closed
	}
	c.next++
	id := c.next
	w := &waiter{id: id, ch: make(chan frame, 1)}
	c.pending[id] = w
	c.origins[id] = ctx
	defer c.forgetOrigin(id)
	c.mu.Unlock()
	f := frame{Kind: kindCall, ID: id, Method: method, Body: body}
	if parent, ok := ctx.Value(callKey{}).(uint64); ok {
		f.Kind, f.Body = kindCallWithin, append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(body)), parent), body...)
	}
	if err := c.write(f, false); err != nil {
		c.forget(w)
		if cerr := c.Err(); cerr != nil {
			return cerr
		}
		return err
	}
	f, err = c.await(ctx, w)
	switch {
	case err != nil:
		return err
	case f.Kind == kindReply:
		if out == nil {
			return nil
		}
		if d, ok := out.(replyDecoder); ok {
			err = d.decodeReply(f.Body)
		} else {
			err = json.Unmarshal(f.Body, out)
		}
		if err != nil {
			return fmt.Errorf("%w: reply to %s: %v", ErrGarbage, method, err)
		}
		return nil
	case f.Kind == 0:
		return c.Err()
	}
	return &RemoteError{Message: string(f.Body)}
}

// await waits for w's answer: from whoever reads, or — reading on demand
// while nobody else does — by reading it itself. When ctx ends first the
// other side is asked to cancel the call, and the cause is returned.
func (c *Conn) await(ctx context.Context, w *waiter) (frame, error) {
	lead := c.demand != nil && c.takeLead(w)
	if c.demand == nil {
		c.handOff() // this may be the call the reader serves
	}
	for {
		if lead {
			return c.lead(ctx, w)
		}
		select {
		case f := <-w.ch:
			if f.Kind == kindLead {
				lead = true
				continue
			}
			return f, nil
		case <-ctx.Done():
			c.abandon(w)
			return frame{}, context.Cause(ctx)
		}
	}
}

// abandon forgets the call w, whose caller gave up, and asks the other
// side to cancel it. Reading on demand, its answer is still read when it
// comes (the other side writes frames before it as for a call in flight),
// and a read side w held is handed on.
func (c *Conn) abandon(w *waiter) {
	c.mu.Lock()
	if c.pending[w.id] == w {
		delete(c.pending, w.id)
		if d := c.demand; d != nil {
			d.abandoned[w.id] = true
			if !w.lead && !d.reading {
				w.lead, d.reading = true, true
			}
		}
	}
	if w.lead {
		c.passOn(false)
	}
	c.mu.Unlock()
	_ = c.write(frame{Kind: kindCancel, ID: w.id}, false)
}

// forget forgets the call w that was never sent. A read side handed to it
// meanwhile is handed on: it was waiting in pending.
func (c *Conn) forget(w *waiter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, w.id)
	if w.lead {
		c.passOn(false)
	}
}

// forgetOrigin forgets the origin of the call id once Call returns, unless
// the call was abandoned while reading on demand: then take forgets it when
// the late answer is read, or Close does.
func (c *Conn) forgetOrigin(id uint64) {
	c.mu.Lock()
	if d := c.demand; d == nil || !d.abandoned[id] {
		delete(c.origins, id)
	}
	c.mu.Unlock()
}

// Notify sends a one-way message.
func (c *Conn) Notify(method string, in any) error {
	return c.NotifyWithin(context.Background(), method, in)
}

// NotifyWithin sends a one-way message within the other side's call that
// ctx serves (a ctx a Handler got, or one derived from it): the other side
// handles it with the values of the context it made that call with (the
// session the call serves). The frame's id, unused by notifications, names
// the call. A message sent within a call whose caller gave up still
// reaches the other side with that caller's values while it reads on
// demand (until the call's late answer); a progress report is dropped
// then, and any message within a call whose answer was read: what it said
// concerned that call. Outside any call it is Notify.
func (c *Conn) NotifyWithin(ctx context.Context, method string, in any) error {
	body, err := marshal(in)
	if err != nil {
		return err
	}
	id, _ := ctx.Value(callKey{}).(uint64)
	return c.write(frame{Kind: kindNotify, ID: id, Method: method, Body: body}, false)
}

// within returns the context a notification sent within this side's call
// id is handled with: the values of the call's context (id 0, no call:
// context.Background()). live is false when the call is no longer in
// flight; abandoned, when its caller gave up and its late answer is still
// to come. The call is still in flight for every notification its callee
// sent before answering it, because notifications are handled on the
// reading goroutine before the next frame (the reply) is read.
func (c *Conn) within(id uint64) (ctx context.Context, live, abandoned bool) {
	if id == 0 {
		return context.Background(), true, false
	}
	c.mu.Lock()
	origin := c.origins[id]
	abandoned = c.demand != nil && c.demand.abandoned[id]
	c.mu.Unlock()
	if origin == nil {
		return nil, false, false
	}
	return context.WithoutCancel(origin), true, abandoned
}

// write sends f; answer says it answers a call of the other side.
func (c *Conn) write(f frame, answer bool) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.bell != nil {
		if answer {
			c.serving.Add(-1)
		} else if c.serving.Load() == 0 {
			f.Rung = true
		}
	}
	var err error
	c.wbuf, err = appendFrame(c.wbuf[:0], f)
	if err != nil {
		return err
	}
	_, err = c.w.Write(c.wbuf)
	if cap(c.wbuf) > 1<<20 {
		c.wbuf = nil // do not keep a bundle-sized buffer
	}
	if f.Rung && err == nil {
		// After the frame: a bell heard means a frame to read.
		_, _ = c.bell.Write([]byte{1})
	}
	return err
}

// marshal encodes v as JSON; raw bytes pass through.
func marshal(v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	case []byte:
		return v, nil
	}
	return json.Marshal(v)
}

// notifyProgress is one ctx.progress report of a tool the other side is
// running for a call of this side: a progressReport sent within that call
// (NotifyWithin), so the frame's id names the call.
const notifyProgress = "progress"

// progressReport is a progress report.
type progressReport struct {
	Done    float64 `json:"done"`
	Total   float64 `json:"total,omitempty"`
	Message string  `json:"message,omitempty"`
}

type callKey struct{}

// Progress returns a receiver that reports to the caller of the call ctx
// serves (a ctx a Handler got), or nil outside a call.
func (c *Conn) Progress(ctx context.Context) contrib.Progress {
	if _, ok := ctx.Value(callKey{}).(uint64); !ok {
		return nil
	}
	return func(done, total float64, message string) {
		_ = c.NotifyWithin(ctx, notifyProgress, progressReport{Done: done, Total: total, Message: message})
	}
}

// deliverProgress hands a report to the receiver of the call it was sent
// within (ctx: within); a call that never asked drops it.
func (c *Conn) deliverProgress(ctx context.Context, body []byte) {
	var r progressReport
	if json.Unmarshal(body, &r) != nil {
		return
	}
	if p := contrib.ProgressFrom(ctx); p != nil {
		p(r.Done, r.Total, r.Message)
	}
}
