package wire

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"time"
)

// Reading on demand (issue 26, point 2). A channel end that reads every
// frame with a goroutine of its own hands each answer to its caller: one
// wake-up of that goroutine and one hand-off between goroutines per call,
// which on the host's side cost more CPU than the pipe itself. On demand,
// the caller reads its own answer, as a plain round trip over a pipe does:
// while calls are in flight, one of them holds the read side and delivers
// what it reads to the others (leader and followers); while none is, no
// goroutine reads.
//
// The other side may still write while no call is in flight (a timer's
// status, note or call back). It then rings a bell — one byte on a second
// pipe — after the frame, and marks the frame as rung; a goroutine
// listening to the bell reads the stream until every rung frame is read.
// A frame the other side writes while it serves a call of this side is not
// rung: it comes before that call's answer, which this side reads. A call
// whose caller gave up is still read to its answer for that reason.

// EnvBell names the file descriptor of the bell a worker rings
// (Conn.RingOn); unset, the host reads every frame as it comes.
const EnvBell = "CRYSTAL_STAR_WORKER_BELL"

// demand is a Conn's state of reading on demand, under Conn.mu.
type demand struct {
	bell     io.Reader
	deadline interface{ SetReadDeadline(time.Time) error }

	reading bool // a goroutine holds the read side
	first   bool // the handshake: read until the first frame
	// debt is the bells heard minus the rung frames read: above zero,
	// rung frames wait in the stream.
	debt int
	// abandoned are calls whose callers gave up; their answers are read
	// when they come.
	abandoned map[uint64]bool
	bellEnded bool // the bell was closed: the other side ended
	readErr   error
	ended     chan struct{} // closed once readErr is set
}

// ReadOnDemand makes this end read the stream only while a call waits for
// its answer, and listen to bell otherwise (the host's end of a worker
// channel, whose worker rings it: RingOn). It must be called before Serve
// and needs a stream with read deadlines (an *os.File pipe), which
// interrupt a caller reading when its context ends; it reports false, and
// changes nothing, without one.
func (c *Conn) ReadOnDemand(bell io.Reader) bool {
	dl, ok := c.r.r.(interface{ SetReadDeadline(time.Time) error })
	if !ok || dl.SetReadDeadline(time.Time{}) != nil {
		return false
	}
	// The read side is Serve's until it has read the handshake: a call
	// made before waits for it.
	c.demand = &demand{bell: bell, deadline: dl, abandoned: map[uint64]bool{}, ended: make(chan struct{}),
		reading: true, first: true}
	return true
}

// RingOn makes this end ring bell after each frame it writes while it
// serves no call of the other side (the worker's end: the host reads on
// demand). Frames written before RingOn — the handshake — are not rung.
func (c *Conn) RingOn(bell io.Writer) {
	c.wmu.Lock()
	c.bell = bell
	c.wmu.Unlock()
}

// BellFromEnv returns the bell the host passed this worker (EnvBell), or
// nil.
func BellFromEnv() io.Writer {
	fd, err := strconv.Atoi(os.Getenv(EnvBell))
	if err != nil || fd < 3 {
		return nil
	}
	return os.NewFile(uintptr(fd), "bell")
}

// serveOnDemand is Serve on a channel that reads on demand.
func (c *Conn) serveOnDemand() error {
	d := c.demand
	go c.listen()
	c.drain()
	<-d.ended
	return d.readErr
}

// listen counts the bells and reads the stream when nobody reads it.
func (c *Conn) listen() {
	d := c.demand
	buf := make([]byte, 256)
	for {
		n, err := d.bell.Read(buf)
		c.mu.Lock()
		d.debt += n
		if err != nil {
			d.bellEnded = true
		}
		start := !d.reading && (d.debt > 0 || d.bellEnded)
		if start {
			d.reading = true
		}
		c.mu.Unlock()
		if start {
			go c.drain()
		}
		if err != nil {
			return
		}
	}
}

// drain reads for nobody's answer: the handshake, rung frames, abandoned
// calls' answers, the stream's end once the bell ended.
func (c *Conn) drain() { _, _ = c.lead(context.Background(), nil) }

// takeLead gives w the read side if nobody holds it and w still waits.
func (c *Conn) takeLead(w *waiter) bool {
	d := c.demand
	c.mu.Lock()
	defer c.mu.Unlock()
	if d.reading || c.pending[w.id] != w {
		return false
	}
	d.reading, w.lead = true, true
	return true
}

// lead reads frames while this goroutine holds the read side: for self's
// answer (then it hands the read side on and returns the answer), or for
// nobody (self nil: while there is something to read and no caller to
// read it). When ctx ends first, self's call is abandoned.
func (c *Conn) lead(ctx context.Context, self *waiter) (frame, error) {
	d := c.demand
	if self != nil && ctx.Done() != nil {
		stop := context.AfterFunc(ctx, c.interrupt)
		defer stop()
	}
	answered := false
	for {
		c.mu.Lock()
		if (self == nil || answered) && !c.passOn(self == nil) {
			c.mu.Unlock()
			break
		}
		err := d.readErr
		if c.closed != nil {
			err = c.closed
		}
		c.mu.Unlock()
		var f frame
		if err == nil {
			f, err = c.r.Read()
		}
		switch {
		case err == nil:
			in, own := c.take(f, self)
			if own {
				answered = true
			} else if in != nil {
				// The reader must read on: the call runs beside it.
				go c.serveCall(in)
			}
			continue
		case errors.Is(err, os.ErrDeadlineExceeded):
			// Another caller's interruption, Close, or ctx.
			_ = d.deadline.SetReadDeadline(time.Time{})
			if self != nil && !answered && ctx.Err() != nil {
				c.abandon(self)
				return frame{}, context.Cause(ctx)
			}
			continue
		}
		c.endReading(err)
		if answered {
			break
		}
		return frame{}, err
	}
	if self == nil {
		return frame{}, nil
	}
	return <-self.ch, nil
}

// passOn decides, with Conn.mu held, who reads next once the goroutine
// holding the read side no longer needs to for itself. It reports whether
// that goroutine keeps reading (keep allows it: only for rung frames when
// not, which are in the stream already); otherwise the read side went to
// a waiting caller, to a new draining goroutine, or to nobody.
func (c *Conn) passOn(keep bool) bool {
	d := c.demand
	if d.readErr != nil || c.closed != nil {
		d.reading = false
		return false
	}
	for _, w := range c.pending {
		if !w.lead {
			w.lead = true
			w.ch <- frame{Kind: kindLead}
			return false
		}
	}
	switch {
	case d.first || d.debt > 0:
		return true
	case len(d.abandoned) > 0 || d.bellEnded:
		if keep {
			return true
		}
		go c.drain()
		return false
	}
	d.reading = false
	return false
}

// endReading records the stream's end: every caller waiting learns it.
func (c *Conn) endReading(err error) {
	d := c.demand
	c.mu.Lock()
	defer c.mu.Unlock()
	if d.readErr == nil {
		d.readErr = err
		close(d.ended)
	}
	d.reading = false
	for _, w := range c.pending {
		if !w.lead {
			w.lead = true
			w.ch <- frame{Kind: kindLead}
		}
	}
}

// interrupt makes the read in progress return (a read deadline in the
// past); the reader resets it.
func (c *Conn) interrupt() { _ = c.demand.deadline.SetReadDeadline(time.Unix(1, 0)) }
