package toolsets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost"
)

// Defaults for Options.
const (
	DefaultMinBackoff = 200 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
	// DefaultStartTimeout bounds how long Start waits for the first
	// connection of every set.
	DefaultStartTimeout = 10 * time.Second
	// healthyAfter is how long a session must live for the backoff to
	// start over.
	healthyAfter = 30 * time.Second
)

// Options configure a Runner. The zero value uses the MCP SDK's transports
// and the default backoff.
type Options struct {
	// Dial returns the transport of one set; nil starts cfg.Command or
	// connects to cfg.URL.
	Dial func(ctx context.Context, name string, cfg starhost.ToolSetConfig) (mcp.Transport, error)
	// MinBackoff and MaxBackoff bound the wait before a restart; it doubles
	// after each failure and starts over after a healthy session.
	MinBackoff, MaxBackoff time.Duration
	// StartTimeout bounds Start's wait for the first connections.
	StartTimeout time.Duration
	// Notes receives a set's failures (ToolSetFailed); nil discards them.
	// Usually the host's Options.Notes.
	Notes func(starhost.Note)
	// CallTimeout bounds one tools/call to a set: past it the call is
	// cancelled (the server gets notifications/cancelled) and answers
	// ErrCallTimeout. Zero is the host's callback_timeout
	// (Host.Config().Limits.CallbackTimeout), else
	// starhost.DefaultCallbackTimeout.
	CallTimeout time.Duration
}

// note delivers d, a note of the runner's own (no plugin, no place), to
// Options.Notes.
func (r *Runner) note(d contrib.Diagnostic) {
	if r.opts.Notes != nil {
		r.opts.Notes(starhost.Note{Code: starhost.Code(d.Code), Severity: starhost.Severity(d.Severity), Message: d.Message})
	}
}

// Runner keeps the configured tool sets running. Close stops them.
type Runner struct {
	h      *starhost.Host
	opts   Options
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start starts every tool set the host's configuration declares and waits
// until each enabled one has connected and listed its tools, or failed
// once, or StartTimeout passed; the sets then keep running in the
// background until ctx ends or Close. Disabled and invalid sets are
// reported with their skip reason and never started.
func Start(ctx context.Context, h *starhost.Host, opts Options) *Runner {
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Dial == nil {
		opts.Dial = dial
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = h.Config().Limits.CallbackTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = starhost.DefaultCallbackTimeout
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &Runner{h: h, opts: opts, cancel: cancel}
	cfg := h.Config()
	var first sync.WaitGroup
	for _, name := range cfg.ToolSetNames() {
		s := &set{r: r, name: name, cfg: cfg.ToolSets[name]}
		if !s.startable(ctx) {
			continue
		}
		first.Add(1)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			s.run(ctx, sync.OnceFunc(first.Done))
		}()
	}
	done := make(chan struct{})
	go func() { first.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(opts.StartTimeout):
	case <-ctx.Done():
	}
	return r
}

// Close stops every set and waits for their goroutines; started processes
// are closed with their sessions.
func (r *Runner) Close() {
	r.cancel()
	r.wg.Wait()
}

// EnvToolSet names the environment variable set on every process started
// as a tool set, to the set's name. A crystal-star started so inherits
// CRYSTAL_HOME and would read the same [tool_sets] and start itself again,
// forever; the CLI starts no tool sets when it is set (StartedAsToolSet).
const EnvToolSet = "CRYSTAL_TOOL_SET"

// StartedAsToolSet reports whether this process was started as a tool set
// (EnvToolSet is set), and the set's name.
func StartedAsToolSet() (string, bool) {
	name := os.Getenv(EnvToolSet)
	return name, name != ""
}

// dial is the default transport: the command over stdio (with EnvToolSet
// set to name), or the URL over Streamable HTTP.
func dial(ctx context.Context, name string, cfg starhost.ToolSetConfig) (mcp.Transport, error) {
	if cfg.URL != "" {
		return &mcp.StreamableClientTransport{Endpoint: cfg.URL}, nil
	}
	cmd := exec.CommandContext(ctx, cfg.Command[0], cfg.Command[1:]...)
	cmd.Env = append(os.Environ(), EnvToolSet+"="+name)
	return &mcp.CommandTransport{Command: cmd}, nil
}

// set is one running tool set.
type set struct {
	r    *Runner
	name string
	cfg  starhost.ToolSetConfig

	mu      sync.Mutex
	session *mcp.ClientSession // nil while down
	// refreshing is set while a refresh runs; again asks it to list once
	// more when it ends. A server flooding tools/list_changed so costs at
	// most one refresh in flight and one pending, never a goroutine and a
	// tools/list per notification.
	refreshing, again bool
}

func (s *set) report(ctx context.Context, st starhost.ToolSetState, tools []starhost.ExternalTool) {
	st.Name, st.Source, st.Enabled = s.name, "home", s.cfg.IsEnabled()
	s.r.h.SetToolSet(ctx, st, tools)
}

// startable reports a disabled or invalid set and says whether to run it.
func (s *set) startable(ctx context.Context) bool {
	switch {
	case !s.cfg.IsEnabled():
		s.report(ctx, starhost.ToolSetState{SkipReason: "disabled"}, nil)
		return false
	case s.cfg.Validate() != nil:
		why := s.cfg.Validate().Error()
		s.r.note(contrib.Diag(contrib.ToolSetFailed, "", contrib.Pos{}, "tool set %q %s; it is not started", s.name, why))
		s.report(ctx, starhost.ToolSetState{SkipReason: "invalid: " + why}, nil)
		return false
	}
	s.report(ctx, starhost.ToolSetState{SkipReason: "not started"}, nil)
	return true
}

// run keeps the set running: serve, and after a failure report it, wait
// the backoff and start again. first (idempotent) is called once the first
// attempt has listed the tools or failed.
func (s *set) run(ctx context.Context, first func()) {
	backoff := s.r.opts.MinBackoff
	loaded := false
	for {
		started := time.Now()
		err := s.serve(ctx, &loaded, first)
		if ctx.Err() != nil {
			first()
			return
		}
		if time.Since(started) > healthyAfter {
			backoff = s.r.opts.MinBackoff
		}
		s.r.note(contrib.Diag(contrib.ToolSetFailed, "", contrib.Pos{}, "tool set %q: %v; its tools answer tool_unavailable; retrying in %s", s.name, err, backoff))
		s.report(ctx, starhost.ToolSetState{Loaded: loaded, SkipReason: err.Error()}, nil)
		first() // Start returns with the failure reported
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, s.r.opts.MaxBackoff)
	}
}

// serve connects, lists the tools (then calls first) and waits until the
// session ends; the error says how it ended.
func (s *set) serve(ctx context.Context, loaded *bool, first func()) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "crystal-star", Version: starhost.Version}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.refreshSoon(ctx)
		},
	})
	t, err := s.r.opts.Dial(ctx, s.name, s.cfg)
	if err != nil {
		return fmt.Errorf("failed to start: %v", err)
	}
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("failed to start: %v", err)
	}
	defer cs.Close()
	defer context.AfterFunc(ctx, func() { cs.Close() })() // Close ends Wait
	s.mu.Lock()
	s.session = cs
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.session = nil
		s.mu.Unlock()
	}()
	if err := s.refresh(ctx); err != nil {
		return fmt.Errorf("failed to list tools: %v", err)
	}
	*loaded = true
	first()
	err = cs.Wait()
	if err == nil {
		err = errors.New("the server closed the session")
	}
	return fmt.Errorf("died: %v", err)
}

// current returns the live session, or nil while the set is down.
func (s *set) current() *mcp.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session
}

// refreshSoon asks for a refresh after a tools/list_changed: it starts
// one, off the session's reader (refresh makes requests on it), unless one
// runs already; then that one lists once more when it ends, for all the
// notifications that came meanwhile (coalesced: at most one in flight and
// one pending per set).
func (s *set) refreshSoon(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refreshing {
		s.again = true
		return
	}
	s.refreshing = true
	go func() {
		for {
			_ = s.refresh(ctx) // a failing list is the session's end, reported by serve
			s.mu.Lock()
			if !s.again || ctx.Err() != nil {
				s.refreshing, s.again = false, false
				s.mu.Unlock()
				return
			}
			s.again = false
			s.mu.Unlock()
		}
	}()
}

// refresh lists the set's tools and reports them: on connect and on every
// tools/list_changed (a reload trigger, CC3).
func (s *set) refresh(ctx context.Context) error {
	cs := s.current()
	if cs == nil {
		return errors.New("not connected")
	}
	tools := []starhost.ExternalTool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		tools = append(tools, s.externalTool(t))
	}
	s.report(ctx, starhost.ToolSetState{Effective: true, Loaded: true}, tools)
	return nil
}
