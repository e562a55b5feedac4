package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
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
	by    *pausableDeadline // the call whose own deadline killed the worker
	group string            // the isolation group's suffix of Message ("; it served …")
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
	// answered: the worker sent its hello (the handshake); a binary that
	// never does is most likely not serving as a worker at all
	// (notServing).
	answered atomic.Bool
	ready    atomic.Bool // its hello said it serves
	hello    atomic.Pointer[wire.Hello]
	greeted  chan struct{} // closed at the hello
	onHello  func(*wire.Hello)

	mu      sync.Mutex
	slots   map[uint64]*slot // the generations it serves; 0: the worker itself (dry runs)
	next    uint64
	cause   *Failure // first cause of death; nil while alive
	closing bool     // Close asked for the death: no fault
	done    chan struct{}
	// onDeath learns the cause of a worker that died before its hello.
	onDeath func(*Failure)
}

// slot is one generation a worker serves: its host services and its fault.
type slot struct {
	plugin string
	bridge Bridge
	fault  func(contrib.Diagnostic)
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
	// The bell the worker rings for a frame written while it serves no
	// call: the host reads the channel only on demand (contrib/wire).
	bell, bellW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer bellW.Close() // the worker's copy stays open: its exit closes the bell
	cmd.ExtraFiles = append(cmd.ExtraFiles, bellW)
	cmd.Env = append(cmd.Env, wire.EnvBell+"="+strconv.Itoa(2+len(cmd.ExtraFiles)))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, stdin: stdin, stderr: &tail{}, timeout: a.opts.CallbackTimeout, limit: a.opts.MemoryLimit,
		done: make(chan struct{}), greeted: make(chan struct{}), slots: map[uint64]*slot{}, onHello: a.hello}
	p.slots[0] = &slot{plugin: req.Plugin, bridge: a.opts.Bridge(req, p.call)}
	cmd.Stderr = p.stderr
	a.starts.Add(1)
	if err := cmd.Start(); err != nil {
		bell.Close()
		a.startFailed(&Failure{Code: contrib.WorkerFailed, Message: "cannot start a worker: " + err.Error()})
		return nil, err
	}
	p.conn = wire.NewConn(stdout, stdin, p.handle, p.notify)
	if !p.conn.ReadOnDemand(bell) {
		// No read deadlines on this platform's pipes: a goroutine reads
		// every frame, and nobody listens to the bell.
		bell.Close()
	}
	p.onDeath = a.startFailed
	go p.run()
	if p.limit > 0 {
		go p.watch(a.opts.WatchInterval)
	}
	return p, nil
}

func (p *process) handle(ctx context.Context, m string, body []byte) (any, error) {
	method, n := wire.SplitSlot(m)
	p.mu.Lock()
	s := p.slots[n]
	p.mu.Unlock()
	if s == nil || s.bridge == nil {
		return nil, fmt.Errorf("no generation in slot %d", n)
	}
	return s.bridge.Handle(ctx, method, body)
}

func (p *process) notify(ctx context.Context, m string, body []byte) {
	method, n := wire.SplitSlot(m)
	if method == wire.NotifyHello && n == 0 {
		var h wire.Hello
		if json.Unmarshal(body, &h) != nil {
			return
		}
		other := h.Version != wire.Version && h.Failed == ""
		if other {
			// Another build's worker: nothing it says can be trusted to
			// mean what this host reads.
			h.Failed = wire.VersionMismatch("host", h.Version)
		}
		if p.hello.CompareAndSwap(nil, &h) {
			p.answered.Store(true)
			if other {
				p.die(&Failure{Code: contrib.WorkerFailed, Message: h.Failed})
			}
			p.ready.Store(h.Failed == "")
			close(p.greeted)
			if p.onHello != nil {
				p.onHello(&h)
			}
		}
		return
	}
	p.mu.Lock()
	s := p.slots[n]
	p.mu.Unlock()
	if s != nil && s.bridge != nil {
		s.bridge.Notify(ctx, method, body)
	}
}

// adopt makes the worker itself (slot 0, the dry runs) serve generation
// req: its services and its fault.
func (p *process) adopt(b Bridge, fault func(contrib.Diagnostic)) { p.set(0, b, fault) }

// set gives slot n its services and its fault.
func (p *process) set(n uint64, b Bridge, fault func(contrib.Diagnostic)) {
	p.mu.Lock()
	s := p.slots[n]
	var old Bridge
	if s != nil {
		old = s.bridge
		s.bridge, s.fault = b, fault
	}
	p.mu.Unlock()
	if old != nil && old != b {
		old.Close()
	}
}

// open adds a slot for a generation of req's plugin and returns its
// number; the slot's services are req's.
func (p *process) open(a *Activator, req contrib.ActivationRequest) uint64 {
	p.mu.Lock()
	p.next++
	n := p.next
	p.mu.Unlock()
	// The slot is added with its services: the reaper (run) reads them.
	s := &slot{plugin: req.Plugin, bridge: a.opts.Bridge(req, p.caller(n))}
	p.mu.Lock()
	p.slots[n] = s
	p.mu.Unlock()
	return n
}

// drop ends slot n's generation in the worker and returns how many
// generations the worker still serves.
func (p *process) drop(n uint64) int {
	p.mu.Lock()
	s := p.slots[n]
	delete(p.slots, n)
	left := len(p.slots)
	if p.slots[0] != nil {
		left--
	}
	p.mu.Unlock()
	if s == nil {
		return left
	}
	if s.bridge != nil {
		s.bridge.Close()
	}
	if left > 0 && !p.exited() {
		// The worker frees the generation; one that no longer answers
		// is the watchdog's and the timeout's.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = p.conn.Call(ctx, wire.SlotMethod(wire.MethodClose, n), nil, nil)
	}
	return left
}

// caller calls slot n of the worker.
func (p *process) caller(n uint64) Caller {
	tool := wire.SlotMethod(wire.MethodTool, n) // the common call, spelt once
	return func(ctx context.Context, what, method string, in, out any) error {
		p.mu.Lock()
		_, open := p.slots[n]
		p.mu.Unlock()
		if !open && !p.exited() {
			return &Failure{Code: contrib.WorkerFailed, Message: "the worker was closed"}
		}
		if method == wire.MethodTool {
			method = tool
		} else {
			method = wire.SlotMethod(method, n)
		}
		return p.call(ctx, what, method, in, out)
	}
}

// plugins are the plugins whose generations the worker serves, sorted.
func (p *process) plugins() []string {
	var ids []string
	for n, s := range p.slots {
		if n != 0 && !slices.Contains(ids, s.plugin) {
			ids = append(ids, s.plugin)
		}
	}
	slices.Sort(ids)
	return ids
}

// run serves the channel until it ends, then reaps the worker and fails
// everything still waiting on it with the cause.
func (p *process) run() {
	readErr := p.conn.Serve()
	_ = p.cmd.Process.Kill() // garbage or EOF: this worker is done either way
	waitErr := p.cmd.Wait()
	f := p.die(p.classify(readErr, waitErr))
	p.mu.Lock()
	if ids := p.plugins(); len(ids) > 1 && !p.closing {
		// An isolation group: every plugin it ran went down with it, and
		// each one's fault says which (docs/isolation.md).
		group := fmt.Sprintf("; it served the isolation group %s: all %d went down with it", strings.Join(ids, ", "), len(ids))
		f = &Failure{Code: f.Code, Message: f.Message + group, by: f.by, group: group}
		p.cause = f
	}
	closing := p.closing
	slots := maps.Clone(p.slots)
	p.mu.Unlock()
	p.conn.Close(f)
	if !p.ready.Load() && p.onDeath != nil {
		p.onDeath(f)
	}
	for _, n := range slices.Sorted(maps.Keys(slots)) {
		s := slots[n]
		if s.fault != nil && !closing {
			s.fault(contrib.Diag(f.Code, s.plugin, contrib.Pos{}, "%s", f.Message))
		}
		if s.bridge != nil {
			s.bridge.Close()
		}
	}
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
	if p.answered.Load() || p.stderr.contains("fatal error:") || p.stderr.contains("crystal-star worker:") {
		// It answered the handshake, or it said why it could not (the Go
		// runtime failing at start, the worker refusing): no guessing.
		return ""
	}
	return "; the worker never answered: does the host program call starhost.ServeWorkerIfChild() first in main (and TestMain)?"
}

// call runs method in the worker under the callback timeout. what names
// the callback in a timeout's message.
func (p *process) call(ctx context.Context, what, method string, in, out any) error {
	if err := p.awaitHello(ctx); err != nil {
		return err
	}
	var d *pausableDeadline
	if p.timeout > 0 {
		// At the deadline the worker is killed, even when the call is
		// stuck writing to a worker that stopped reading; its channel
		// ending ends the call. The deadline stops while the call waits
		// for a person (ctx.ask, served by the host within this call):
		// callback_timeout bounds plugin code, ask_timeout the person.
		d = startDeadline(p.timeout, func(d *pausableDeadline) { p.die(p.timedOut(what, d)) })
		defer d.stop()
		ctx = contrib.WithWaitClock(ctx, d.pause)
	}
	err := p.conn.Call(ctx, method, in, out)
	var re *wire.RemoteError
	var f *Failure
	switch {
	case err == nil || errors.As(err, &re):
		return err
	case d.passed() && ctx.Err() == nil:
		f = p.die(p.timedOut(what, d))
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
	return p.blame(f, what, d)
}

// timedOut is the failure of the call what whose deadline d passed.
func (p *process) timedOut(what string, d *pausableDeadline) *Failure {
	return &Failure{Code: contrib.CallbackTimeout, by: d,
		Message: fmt.Sprintf("%s: callback_timeout %s exceeded: the worker was killed%s", what, p.timeout, p.notServing())}
}

// blame is the failure of the call what (its deadline d) that the
// worker's death f ended, with whose fault it was (issue 24, point 10): the
// call whose own deadline killed the worker timed out; anything else — a
// memory kill, another call's deadline, a crash, garbage — is the worker's
// failure (worker_failed). The host cannot attribute a worker's memory to
// one call (the plugin's timers run there unseen), so a memory kill's
// message says the worker was killed while the call ran rather than that
// the call exceeded the limit. Every message names the callback.
func (p *process) blame(f *Failure, what string, d *pausableDeadline) *Failure {
	if d != nil && f.by == d {
		return &Failure{Code: f.Code, Message: f.Message, Cause: contrib.CauseCallbackTimeout}
	}
	msg := strings.TrimSuffix(f.Message, f.group)
	switch {
	case f.Code == contrib.ResourceExhausted || f.Code == contrib.CallbackTimeout:
		// One set of parentheses: the limit, then the group it took down.
		msg = what + ": the worker running this call was killed (" + strings.TrimSuffix(msg, ": the worker was killed") + f.group + ")"
	case !strings.HasPrefix(msg, what+": "):
		msg = what + ": " + msg + f.group
	default:
		msg += f.group
	}
	return &Failure{Code: f.Code, Message: msg, Cause: contrib.CauseWorkerFailed}
}

// workerStartTimeout bounds how long a worker may take to answer the
// handshake (exec and package initialisation, on a busy machine), apart
// from callback_timeout, which bounds plugin code only.
const workerStartTimeout = 30 * time.Second

// awaitHello waits for the worker's handshake before its first call, so
// that callback_timeout measures the callback and not the process start. A
// worker that neither answers nor exits within workerStartTimeout is
// killed: it is not serving as a worker.
func (p *process) awaitHello(ctx context.Context) error {
	select {
	case <-p.greeted:
		return nil
	default:
	}
	t := time.NewTimer(max(workerStartTimeout, p.timeout))
	defer t.Stop()
	select {
	case <-p.greeted:
		return nil
	case <-p.done:
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		p.die(&Failure{Code: contrib.WorkerFailed, Message: fmt.Sprintf("the worker did not answer the handshake within %s%s",
			max(workerStartTimeout, p.timeout), p.notServing())})
		<-p.done
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cause
}

// close ends the worker on purpose (its generation closed): no fault.
func (p *process) close() {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	if profiled(p.cmd.Env) {
		// A profiled worker writes its profiles once its channel ends:
		// it is given time to exit by itself.
		_ = p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(profileGrace):
		}
	}
	p.die(&Failure{Code: contrib.WorkerFailed, Message: "the worker was closed"})
	_ = p.stdin.Close()
	<-p.done
}

// profileGrace is how long a profiled worker (wire.EnvProfile) is given to
// write its profiles and exit when it is closed.
const profileGrace = 5 * time.Second

// profiled reports whether a worker's environment asks it to profile
// itself.
func profiled(env []string) bool {
	return slices.ContainsFunc(env, func(kv string) bool {
		return strings.HasPrefix(kv, wire.EnvProfile+"=") && len(kv) > len(wire.EnvProfile)+1
	})
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
