package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
)

// A worker channel as the host and a worker hold it (issue 26, point 2):
// OS pipes, the host reading on demand, the worker ringing the bell.
type pair struct {
	host, worker *Conn
	notes        *noteList
}

type noteList struct {
	mu    sync.Mutex
	notes []string
	seen  chan string
}

func (n *noteList) add(ctx context.Context, method string, body []byte) {
	n.mu.Lock()
	note := method + " " + string(body)
	if v, ok := ctx.Value(originKey{}).(string); ok {
		note += " @" + v // the caller's values it was handled with
	}
	n.notes = append(n.notes, note)
	n.mu.Unlock()
	select {
	case n.seen <- method:
	default:
	}
}

func (n *noteList) has(s string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, x := range n.notes {
		if x == s {
			return true
		}
	}
	return false
}

func newPair(t *testing.T, hostHandle, workerHandle Handler) *pair {
	t.Helper()
	hr, ww, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	wr, hw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	br, bw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &pair{notes: &noteList{seen: make(chan string, 100)}}
	p.host = NewConn(hr, hw, hostHandle, p.notes.add)
	if !p.host.ReadOnDemand(br) {
		t.Fatal("ReadOnDemand refused an OS pipe")
	}
	p.worker = NewConn(wr, ww, workerHandle, nil)
	if err := p.worker.Notify(NotifyHello, Hello{Version: Version}); err != nil {
		t.Fatal(err)
	}
	p.worker.RingOn(bw)
	served := make(chan error, 2)
	go func() { served <- p.host.Serve() }()
	go func() { served <- p.worker.Serve() }()
	if m := <-p.notes.seen; m != NotifyHello {
		t.Fatalf("first notification %q, want the hello", m)
	}
	t.Cleanup(func() {
		hw.Close() // the worker's stream ends: its Serve returns
		ww.Close()
		bw.Close() // the host hears the bell end and reads to the end
		<-served
		<-served
		p.host.Close(nil)
		p.worker.Close(nil)
	})
	return p
}

// cancelInFlight calls method on c with ctx, cancels the call once it is
// in flight, and requires it to return the cancellation.
func cancelInFlight(t *testing.T, c *Conn, ctx context.Context, cancel context.CancelFunc, method string) {
	t.Helper()
	errc := make(chan error)
	go func() { errc <- c.Call(ctx, method, nil, nil) }()
	waitInFlight(c, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call returned %v", err)
	}
}

// waitInFlight waits until n calls of c are in flight.
func waitInFlight(c *Conn, n int) {
	for {
		c.mu.Lock()
		m := len(c.pending)
		c.mu.Unlock()
		if m == n {
			return
		}
		runtime.Gosched()
	}
}

// idle waits until nobody reads the host's stream (a drain of an
// abandoned answer may still run just after a call returns).
func (p *pair) idle(t *testing.T) {
	t.Helper()
	for i := 0; ; i++ {
		p.host.mu.Lock()
		reading := p.host.demand.reading
		p.host.mu.Unlock()
		if !reading {
			return
		}
		if i > 5000 {
			t.Fatal("the host still reads with no call in flight")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestH26_2_HostReadsOnlyWhileACallWaits: the caller reads its own answer;
// with no call in flight no goroutine of the host reads the channel, and a
// note the worker sends while serving a call reaches the host before the
// call returns.
func TestH26_2_HostReadsOnlyWhileACallWaits(t *testing.T) {
	var p *pair
	p = newPair(t, nil, func(ctx context.Context, method string, body []byte) (any, error) {
		_ = p.worker.Notify("note", "during "+string(body))
		return "ok " + string(body), nil
	})
	for i := range 50 {
		var got string
		if err := p.host.Call(context.Background(), "tool", i, &got); err != nil || got != fmt.Sprintf("ok %d", i) {
			t.Fatalf("call %d = %q, %v", i, got, err)
		}
		if !p.notes.has(fmt.Sprintf(`note "during %d"`, i)) {
			t.Fatalf("call %d returned before the note the worker sent while serving it", i)
		}
		p.host.mu.Lock()
		reading := p.host.demand.reading
		p.host.mu.Unlock()
		if reading {
			t.Fatalf("after call %d a goroutine still holds the host's read side", i)
		}
	}
}

// TestH26_2_WorkerFramesBetweenCallsRingTheBell: what a worker sends while
// it serves no call — a timer's notes, its call back to the host — is read
// through the bell, in order, with no call of the host in flight.
func TestH26_2_WorkerFramesBetweenCallsRingTheBell(t *testing.T) {
	var p *pair
	p = newPair(t, func(ctx context.Context, method string, body []byte) (any, error) {
		return "host answered " + method, nil
	}, nil)
	for i := range 20 {
		if err := p.worker.Notify("status", i); err != nil {
			t.Fatal(err)
		}
	}
	var got string
	if err := p.worker.Call(context.Background(), "env", nil, &got); err != nil || got != "host answered env" {
		t.Fatalf("the worker's call back between calls = %q, %v", got, err)
	}
	for i := range 20 {
		if !p.notes.has(fmt.Sprintf("status %d", i)) {
			t.Fatalf("status %d never reached the host", i)
		}
	}
	p.notes.mu.Lock()
	for i, n := range p.notes.notes[1:21] {
		if n != fmt.Sprintf("status %d", i) {
			t.Errorf("note %d is %q: out of order", i, n)
		}
	}
	p.notes.mu.Unlock()
	p.idle(t)
}

// TestH26_2_CancelWhileReading: a caller reading its own answer whose
// context ends returns at once and the worker's call is cancelled; the
// answer that comes later is read and dropped, and the channel serves on.
func TestH26_2_CancelWhileReading(t *testing.T) {
	cancelled := make(chan struct{})
	var p *pair
	p = newPair(t, nil, func(ctx context.Context, method string, body []byte) (any, error) {
		if method == "hang" {
			<-ctx.Done()
			close(cancelled)
			_ = p.worker.Notify("note", "after the cancel")
			return "too late", nil
		}
		return "ok", nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancelInFlight(t, p.host, ctx, cancel, "hang")
	<-cancelled // the worker's call saw the cancel
	var got string
	if err := p.host.Call(context.Background(), "tool", nil, &got); err != nil || got != "ok" {
		t.Fatalf("the next call = %q, %v", got, err)
	}
	p.idle(t)
	if !p.notes.has(`note "after the cancel"`) {
		t.Error("the note sent before the cancelled call's answer was lost")
	}
}

// TestH26_2_ConcurrentCallsShareTheReader: calls in flight at once each get
// their own answer, whichever of them reads, while the worker calls back
// within them.
func TestH26_2_ConcurrentCallsShareTheReader(t *testing.T) {
	var p *pair
	p = newPair(t, func(ctx context.Context, method string, body []byte) (any, error) {
		return "host:" + string(body), nil
	}, func(ctx context.Context, method string, body []byte) (any, error) {
		if strings.HasSuffix(string(body), "0") {
			var s string
			if err := p.worker.Call(ctx, "session", json.RawMessage(body), &s); err != nil {
				return nil, err
			}
			return s, nil
		}
		return "w:" + string(body), nil
	})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				in := g*1000 + i
				want := fmt.Sprintf("w:%d", in)
				if in%10 == 0 {
					want = fmt.Sprintf("host:%d", in)
				}
				var got string
				if err := p.host.Call(context.Background(), "tool", in, &got); err != nil || got != want {
					t.Errorf("call %d = %q, %v; want %q", in, got, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	p.idle(t)
}

// TestH26_2_WorkerServesOnTheReadingGoroutine: calls one after another are
// served on one goroutine (none started per call); a call that lasts hands
// reading over, so the next call and a cancel are still read.
func TestH26_2_WorkerServesOnTheReadingGoroutine(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	release := make(chan struct{})
	handle := func(ctx context.Context, method string, body []byte) (any, error) {
		switch method {
		case "block":
			<-release
		case "wait":
			<-ctx.Done()
			return "cancelled", nil
		}
		mu.Lock()
		seen[goroutine()] = true
		mu.Unlock()
		return nil, nil
	}
	// Calls in a row, each shorter than the hand-off delay (an hour here,
	// so that a slow machine does not hand off).
	a := conns(t, handle, time.Hour)
	for range 20 {
		if err := a.Call(context.Background(), "tool", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 1 {
		t.Fatalf("20 calls in a row were served on %d goroutines, want 1", len(seen))
	}
	// A call that lasts, with the delay of a worker.
	a = conns(t, handle, handOffAfter)
	blocked := make(chan error)
	go func() { blocked <- a.Call(context.Background(), "block", nil, nil) }()
	if err := a.Call(context.Background(), "tool", nil, nil); err != nil {
		t.Fatalf("a call while another lasts: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error)
	go func() { waited <- a.Call(ctx, "wait", nil, nil) }()
	cancel()
	if err := <-waited; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call = %v", err)
	}
	close(release)
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}
}

// conns returns the calling end of a channel whose other end serves with
// handle, handing reading off after the delay given.
func conns(t *testing.T, handle Handler, delay time.Duration) *Conn {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	b := NewConn(br, bw, handle, nil)
	b.handOffAfter = delay
	a := NewConn(ar, aw, nil, nil)
	go a.Serve()
	go b.Serve()
	t.Cleanup(func() { a.Close(nil); b.Close(nil); aw.Close(); bw.Close() })
	return a
}

// goroutine returns the calling goroutine's number.
func goroutine() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	return string(bytes.Fields(buf)[1])
}

// cutReader returns its data in pieces, with a read deadline's error
// between them.
type cutReader struct {
	parts [][]byte
	fail  bool
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.fail = !r.fail; r.fail {
		return 0, os.ErrDeadlineExceeded
	}
	if len(r.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.parts[0])
	r.parts = r.parts[1:]
	return n, nil
}

// TestH26_2_FrameCutByADeadlineResumes: a read deadline interrupting a
// frame (a caller whose context ended) loses none of it: the next reader
// reads it whole.
func TestH26_2_FrameCutByADeadlineResumes(t *testing.T) {
	f := frame{Kind: kindReply, ID: 9, Method: "tool", Body: []byte(`{"text":"hello"}`)}
	buf, _ := appendFrame(nil, f)
	r := newReader(&cutReader{parts: [][]byte{buf[:2], buf[2:7], buf[7:]}})
	for {
		got, err := r.Read()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			continue
		}
		if err != nil || got.ID != 9 || string(got.Body) != string(f.Body) {
			t.Fatalf("Read = %+v, %v", got, err)
		}
		break
	}
	if _, err := r.Read(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("after the frame: %v", err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("at the end: %v, want EOF", err)
	}
}

// gateWriter passes writes on until armed; an armed write waits for its
// error.
type gateWriter struct {
	mu    sync.Mutex
	armed chan error
	w     io.Writer
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	armed := g.armed
	g.mu.Unlock()
	if armed != nil {
		return 0, <-armed
	}
	return g.w.Write(p)
}

// TestH26_2_AFailedCallHandsTheReadSideOn: a call whose frame cannot be
// written may have been handed the read side while it waited to write; it
// hands it on, so the next call still reads its answer (a worker killed
// while the host started a call left the host waiting forever).
func TestH26_2_AFailedCallHandsTheReadSideOn(t *testing.T) {
	hr, ww, _ := os.Pipe()
	br, bw, _ := os.Pipe()
	defer ww.Close()
	defer bw.Close()
	gw := &gateWriter{w: io.Discard}
	host := NewConn(hr, gw, nil, nil)
	if !host.ReadOnDemand(br) {
		t.Fatal("no read deadlines on an OS pipe")
	}
	go host.Serve()
	send := func(f frame) {
		b, _ := appendFrame(nil, f)
		if _, err := ww.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	send(frame{Kind: kindNotify, Method: NotifyHello, Body: []byte("{}")})
	state := func() (reading bool, pending int) {
		host.mu.Lock()
		defer host.mu.Unlock()
		return host.demand.reading, len(host.pending)
	}
	waitFor := func(what string, ok func() bool) {
		for i := 0; !ok(); i++ {
			if i > 10000 {
				t.Fatalf("never: %s", what)
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitFor("the handshake read", func() bool { r, _ := state(); return !r })
	a := make(chan error)
	go func() { a <- host.Call(context.Background(), "a", nil, nil) }()
	waitFor("a reading", func() bool { r, n := state(); return r && n == 1 })
	armed := make(chan error)
	gw.mu.Lock()
	gw.armed = armed
	gw.mu.Unlock()
	b := make(chan error)
	go func() { b <- host.Call(context.Background(), "b", nil, nil) }()
	waitFor("b waiting to write", func() bool { _, n := state(); return n == 2 })
	send(frame{Kind: kindReply, ID: 1})
	if err := <-a; err != nil {
		t.Fatal(err)
	}
	armed <- errors.New("broken pipe")
	if err := <-b; err == nil {
		t.Fatal("b's failed write returned no error")
	}
	gw.mu.Lock()
	gw.armed = nil
	gw.mu.Unlock()
	if r, _ := state(); r {
		t.Fatal("the read side handed to the failed call was lost: nobody will read")
	}
	c := make(chan error)
	go func() { c <- host.Call(context.Background(), "c", nil, nil) }()
	waitFor("c reading", func() bool { r, n := state(); return r && n == 1 })
	send(frame{Kind: kindReply, ID: 3})
	if err := <-c; err != nil {
		t.Fatal(err)
	}
}

// TestH26_2_LateFramesOfAnAbandonedCallKeepTheCallersValues: what the
// worker sends within a call after its caller gave up (before it saw the
// cancel) is handled with that caller's values, as in process: a
// notification (a status update) reaches the notifier with them and a call
// back runs with them; a progress report is dropped (its receiver's call has
// returned). Once the late answer is read the call's origin is forgotten.
func TestH26_2_LateFramesOfAnAbandonedCallKeepTheCallersValues(t *testing.T) {
	proceed := make(chan struct{})
	backFrom := make(chan string, 1)
	var p *pair
	p = newPair(t, func(ctx context.Context, method string, body []byte) (any, error) {
		v, _ := ctx.Value(originKey{}).(string)
		backFrom <- v
		return "back", nil
	}, func(ctx context.Context, method string, body []byte) (any, error) {
		<-proceed // the host's call has returned
		_ = p.worker.NotifyWithin(ctx, "status", "late")
		p.worker.Progress(ctx)(1, 2, "late")
		// The worker has not seen the cancel yet: its call back is made
		// within the call still.
		if err := p.worker.Call(context.WithoutCancel(ctx), "back", nil, nil); err != nil {
			t.Errorf("the call back within the abandoned call: %v", err)
		}
		return "too late", nil
	})
	progressed := make(chan string, 1)
	ctx := context.WithValue(context.Background(), originKey{}, "session a")
	ctx = contrib.WithProgress(ctx, func(_, _ float64, msg string) { progressed <- msg })
	ctx, cancel := context.WithCancel(ctx)
	cancelInFlight(t, p.host, ctx, cancel, "tool")
	close(proceed)
	if v := <-backFrom; v != "session a" {
		t.Errorf("the call back within the abandoned call ran with origin %q, want the caller's", v)
	}
	p.idle(t)
	if !p.notes.has(`status "late" @session a`) {
		t.Errorf("notes %q: the late status update was not handled with the caller's values", p.notes.notes)
	}
	select {
	case m := <-progressed:
		t.Errorf("a progress report %q reached a caller that gave up", m)
	default:
	}
	p.host.mu.Lock()
	n, a := len(p.host.origins), len(p.host.demand.abandoned)
	p.host.mu.Unlock()
	if n != 0 || a != 0 {
		t.Errorf("after the late answer: %d origins and %d abandoned calls kept, want none", n, a)
	}
}
