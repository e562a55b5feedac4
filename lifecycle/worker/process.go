package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// Failure is why a worker was killed or a call to it failed. Its message is
// what a caller sees (a tool result's message); Code is the diagnostic code
// of the fault.
type Failure struct {
	Code    contrib.Code
	Message string
	// Cause is the contrib.Cause* of a tool call that failed with it.
	Cause string
	by    context.Context // the call whose own deadline killed the worker
}

func (f *Failure) Error() string { return f.Message }

// ToolCause returns Cause: a tool call failing with f reports it
// (contrib/wire.ToolStub).
func (f *Failure) ToolCause() string { return f.Cause }

// process is one running worker.
type process struct {
	cmd     *exec.Cmd
	conn    *wire.Conn
	stdin   io.Closer
	stderr  *tail
	timeout time.Duration
	limit   int64
	rss     atomic.Int64 // the watchdog's last reading of the resident size
	// answered: the worker has answered a call; a binary that never does
	// is most likely not serving as a worker at all (notServing).
	answered atomic.Bool

	mu      sync.Mutex
	bridge  Bridge
	cause   *Failure // first cause of death; nil while alive
	closing bool     // Close asked for the death: no fault
	fault   func(contrib.Diagnostic)
	plugin  string
	done    chan struct{}
}

// start launches a worker for req's plugin.
func (a *Activator) start(req contrib.ActivationRequest) (*process, error) {
	cmd, err := a.opts.Command()
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, wire.EnvWorker+"="+wire.Version)
	if a.opts.MemoryLimit > 0 {
		cmd.Env = append(cmd.Env, wire.EnvMemoryLimit+"="+strconv.FormatInt(a.opts.MemoryLimit, 10))
	}
	cmd.SysProcAttr = sysProcAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, stdin: stdin, stderr: &tail{}, timeout: a.opts.CallbackTimeout, limit: a.opts.MemoryLimit,
		plugin: req.Plugin, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.bridge = a.opts.Bridge(req, p.call)
	p.conn = wire.NewConn(stdout, stdin, p.handle, p.notify)
	go p.run()
	if p.limit > 0 {
		go p.watch(a.opts.WatchInterval)
	}
	return p, nil
}

func (p *process) handle(ctx context.Context, method string, body []byte) (any, error) {
	p.mu.Lock()
	b := p.bridge
	p.mu.Unlock()
	return b.Handle(ctx, method, body)
}

func (p *process) notify(method string, body []byte) {
	p.mu.Lock()
	b := p.bridge
	p.mu.Unlock()
	b.Notify(method, body)
}

// adopt makes the worker serve generation req: its services and its fault.
func (p *process) adopt(b Bridge, fault func(contrib.Diagnostic)) {
	p.mu.Lock()
	old := p.bridge
	p.bridge, p.fault = b, fault
	p.mu.Unlock()
	if old != nil && old != b {
		old.Close()
	}
}

// run serves the channel until it ends, then reaps the worker and fails
// everything still waiting on it with the cause.
func (p *process) run() {
	readErr := p.conn.Serve()
	_ = p.cmd.Process.Kill() // garbage or EOF: this worker is done either way
	waitErr := p.cmd.Wait()
	f := p.die(p.classify(readErr, waitErr))
	p.conn.Close(f)
	p.mu.Lock()
	fault := p.fault
	if p.closing {
		fault = nil
	}
	b := p.bridge
	p.mu.Unlock()
	if fault != nil {
		fault(contrib.Diag(f.Code, p.plugin, contrib.Pos{}, "%s", f.Message))
	}
	b.Close()
	close(p.done)
}

// die records the first cause of death and kills the worker; it returns
// the cause that counts.
func (p *process) die(f *Failure) *Failure {
	p.mu.Lock()
	if p.cause == nil {
		p.cause = f
	}
	f = p.cause
	p.mu.Unlock()
	_ = p.cmd.Process.Kill()
	return f
}

// classify names why the channel ended, when no limit had killed it.
func (p *process) classify(readErr, waitErr error) *Failure {
	last := p.stderr.headline()
	if last != "" {
		last = ": " + last
	}
	switch {
	// The race detector's runtime reports an address-space limit as
	// "address space collisions" instead of "out of memory".
	case p.stderr.contains("out of memory") || p.stderr.contains("address space collisions"):
		return &Failure{Code: contrib.ResourceExhausted,
			Message: fmt.Sprintf("memory_limit %s exceeded: the worker was killed", contrib.FormatByteSize(p.limit))}
	case errors.Is(readErr, wire.ErrGarbage):
		return &Failure{Code: contrib.WorkerFailed, Message: fmt.Sprintf("the worker was killed: %v%s", readErr, p.notServing())}
	case waitErr != nil:
		return &Failure{Code: contrib.WorkerFailed, Message: fmt.Sprintf("the worker exited (%v)%s%s", waitErr, last, p.notServing())}
	}
	return &Failure{Code: contrib.WorkerFailed, Message: "the worker exited" + last + p.notServing()}
}

// notServing is the hint for a worker that never answered a call: the
// re-executed binary most likely ran its own program instead of serving,
// because its main does not call starhost.ServeWorkerIfChild first.
func (p *process) notServing() string {
	if p.answered.Load() {
		return ""
	}
	return "; the worker never answered: does the host program call starhost.ServeWorkerIfChild() first in main (and TestMain)?"
}

// call runs method in the worker under the callback timeout. what names
// the callback in a timeout's message.
func (p *process) call(ctx context.Context, what, method string, in, out any) error {
	cctx := ctx
	timedOut := func() bool { return ctx.Err() == nil && errors.Is(context.Cause(cctx), errTimedOut) }
	timeout := func() *Failure {
		return &Failure{Code: contrib.CallbackTimeout, by: cctx,
			Message: fmt.Sprintf("%s: callback_timeout %s exceeded: the worker was killed%s", what, p.timeout, p.notServing())}
	}
	if p.timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeoutCause(ctx, p.timeout, errTimedOut)
		defer cancel()
		// Kill at the deadline even when the call is stuck writing to a
		// worker that stopped reading.
		stop := context.AfterFunc(cctx, func() {
			if timedOut() {
				p.die(timeout())
			}
		})
		defer stop()
	}
	err := p.conn.Call(cctx, method, in, out)
	var re *wire.RemoteError
	var f *Failure
	switch {
	case err == nil || errors.As(err, &re):
		p.answered.Store(true)
		return err
	case timedOut():
		f = p.die(timeout())
	case errors.Is(err, wire.ErrGarbage):
		f = p.die(&Failure{Code: contrib.WorkerFailed, Message: fmt.Sprintf("the worker was killed: %v", err)})
	case ctx.Err() != nil:
		return err // the caller gave up; the worker was asked to cancel
	default:
		// The channel failed (a write to a worker that just died): the
		// cause is known once the worker is reaped, which its reader sees
		// at once; a worker that only closed its stdin is killed.
		select {
		case <-p.done:
		case <-time.After(time.Second):
			p.die(&Failure{Code: contrib.WorkerFailed, Message: fmt.Sprintf("the worker channel failed: %v", err)})
		}
	}
	<-p.done // the fault is delivered before the caller sees the result
	p.mu.Lock()
	defer p.mu.Unlock()
	if f == nil || p.cause != nil {
		f = p.cause
	}
	if f == nil {
		return nil
	}
	return p.blame(f, what, cctx)
}

// blame is the failure of the call what (its context cctx) that the
// worker's death f ended, with whose fault it was (issue 24, point 10): the
// call whose own deadline killed the worker timed out; anything else — a
// memory kill, another call's deadline, a crash, garbage — is the worker's
// failure (worker_failed). The host cannot attribute a worker's memory to
// one call (the plugin's timers run there unseen), so a memory kill's
// message says the worker was killed while the call ran rather than that
// the call exceeded the limit. Every message names the callback.
func (p *process) blame(f *Failure, what string, cctx context.Context) *Failure {
	if f.by != nil && f.by == cctx {
		return &Failure{Code: f.Code, Message: f.Message, Cause: contrib.CauseCallbackTimeout}
	}
	msg := f.Message
	switch {
	case f.Code == contrib.ResourceExhausted || f.Code == contrib.CallbackTimeout:
		msg = what + ": the worker running this call was killed (" + strings.TrimSuffix(msg, ": the worker was killed") + ")"
	case !strings.HasPrefix(msg, what+": "):
		msg = what + ": " + msg
	}
	return &Failure{Code: f.Code, Message: msg, Cause: contrib.CauseWorkerFailed}
}

var errTimedOut = errors.New("callback timeout")

// close ends the worker on purpose (its generation closed): no fault.
func (p *process) close() {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	p.die(&Failure{Code: contrib.WorkerFailed, Message: "the worker was closed"})
	_ = p.stdin.Close()
	<-p.done
}

// watch kills the worker when its resident size passes the memory limit:
// the address-space limit the worker applies to itself stops one large
// allocation, this stops growth the kernel would otherwise allow (shared
// or file-backed pages, a limit the platform lacks).
func (p *process) watch(every time.Duration) {
	if every <= 0 {
		every = DefaultWatchInterval
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			rss, err := residentBytes(p.cmd.Process.Pid)
			if err == nil {
				p.rss.Store(rss)
			}
			if err == nil && rss > p.limit {
				p.die(&Failure{Code: contrib.ResourceExhausted, Message: fmt.Sprintf(
					"memory_limit %s exceeded: the worker was killed", contrib.FormatByteSize(p.limit))})
				return
			}
		}
	}
}

// tail keeps the first and the last few KiB a worker wrote to stderr: the
// Go runtime's "out of memory" headline comes first, before its goroutine
// dump; a crash's last words come last.
type tail struct {
	mu   sync.Mutex
	head []byte
	buf  []byte
}

const tailSize = 4 << 10

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := min(tailSize-len(t.head), len(b)); n > 0 {
		t.head = append(t.head, b[:n]...)
	}
	t.buf = append(t.buf, b...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(b), nil
}

func (t *tail) contains(s string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Contains(t.head, []byte(s)) || bytes.Contains(t.buf, []byte(s))
}

// headline returns the line that says why the worker died: the first
// panic or fatal error the Go runtime wrote, else the first line.
func (t *tail) headline() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	first := ""
	for _, l := range strings.Split(string(t.head), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:"):
			return l
		case first == "":
			first = l
		}
	}
	return first
}
