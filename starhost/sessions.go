package starhost

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/statusline"
)

// Session is one agent session on a host: its facts (session id, mode,
// approval mode, model), its session and review models with their clients,
// its status values and its end. A host serves any number of sessions at
// once; what one session sets is never seen by another. Get one with
// Host.NewSession; its per-conversation calls hang off Thread. All methods
// are safe for concurrent use. After End a session serves nothing new: its
// threads still answer, as a session with no plugins state would.
type Session struct {
	h      *Host
	scope  *served // bound to the context of every call made for the session
	facts  atomic.Pointer[Facts]
	model  atomic.Pointer[ModelFacts]
	review atomic.Pointer[ReviewFacts]
	// Epochs identify the current build of the session and review clients;
	// plugins' cached clients of an older epoch are discarded (CC27).
	sessionEpoch, reviewEpoch atomic.Uint64
	// sessionKey and reviewKey are the providers.json models selected
	// ("provider/model", or ""); guarded by h.models.mu.
	sessionKey, reviewKey string

	// tag qualifies the keys of state captured for the session's threads
	// (the prompt and tool list depend on its facts); "" for the host's
	// defaults.
	tag    string
	status statusline.Overlay // the session's own status values
	locals contrib.Locals     // plugins' model clients of this session
	ended  atomic.Bool

	// started and fired are guarded by h.order.mu (sessionorder.go).
	started bool
	fired   map[string]string // plugin → generation that saw session_started
}

// SessionOptions configure a new session. The zero value is a session of
// the host's defaults (Options.Defaults): the workspace, their mode and
// approval mode, and the model and review model config.toml selects.
type SessionOptions struct {
	// Facts are the session's facts (ctx.session_id, ctx.mode,
	// ctx.approval_mode); an empty one keeps the default. Workspace is
	// always the host's; Provider and Model follow the session model.
	Facts Facts
	// Model, when set, is the session model instead of the configured one
	// (as Session.SetModel); Review likewise (Session.SetReview).
	Model  *ModelFacts
	Review *ReviewFacts
}

// NewSession starts a session: it starts from the host's defaults, takes
// opts, and runs the session_started hooks of every attached generation
// (those of generations attached later run after their attach, MC8). It is
// cheap — no plugin is compiled or run again, no watcher is opened — so an
// agent server makes one per agent session. It fails with ErrHostClosed on
// a closed host; before Start it succeeds and the hooks run once plugins
// attach.
func (h *Host) NewSession(ctx context.Context, opts SessionOptions) (*Session, error) {
	if h.life.closed.Load() {
		return nil, codeErrorf(ErrHostClosed, "the host is closed: no new session")
	}
	s := h.newSession()
	s.tag = "\x00#" + strconv.FormatUint(sessionSerial.Add(1), 36)
	base := h.base
	f := base.Facts() // the defaults, under what opts sets
	for _, p := range []struct {
		to   *string
		from string
	}{{&f.SessionID, opts.Facts.SessionID}, {&f.Mode, opts.Facts.Mode},
		{&f.ApprovalMode, opts.Facts.ApprovalMode}} {
		if p.from != "" {
			*p.to = p.from
		}
	}
	if m := base.model.Load(); m != nil {
		s.model.Store(m)
		f.Provider, f.Model = m.Provider, m.Model
	}
	if r := base.review.Load(); r != nil {
		s.review.Store(r)
	}
	h.models.mu.Lock()
	s.sessionKey, s.reviewKey = base.sessionKey, base.reviewKey
	h.models.mu.Unlock()
	s.SetFacts(f)
	if opts.Model != nil {
		s.SetModel(*opts.Model)
	}
	if opts.Review != nil {
		s.SetReview(*opts.Review)
	}
	h.start(ctx, s)
	return s, nil
}

// sessionSerial numbers sessions for their tags.
var sessionSerial atomic.Uint64

// epochSerial numbers the builds of every session's model clients, so that
// no two sessions' epochs are equal: a client a plugin cached for one
// session is never taken for another's (a worker keys its cache by the
// session id, which sessions may share).
var epochSerial atomic.Uint64

func newEpoch() uint64 { return epochSerial.Add(1) }

// newSession returns a session with the host's workspace and nothing else.
func (h *Host) newSession() *Session {
	s := &Session{h: h}
	s.scope = &served{s: s}
	s.sessionEpoch.Store(newEpoch())
	s.reviewEpoch.Store(newEpoch())
	s.facts.Store(&Facts{Workspace: h.opts.Workspace})
	return s
}

// End runs the session's session_ended hooks (read only) and ends it: its
// status values and plugins' clients of it are dropped, and plugins'
// generations attached later no longer see it start. A second End does
// nothing.
func (s *Session) End(ctx context.Context) {
	if !s.ended.CompareAndSwap(false, true) {
		return
	}
	h := s.h
	h.order.mu.Lock()
	s.started, s.fired = false, nil
	delete(h.order.live, s)
	h.order.mu.Unlock()
	h.hook(s.bind(ctx), contrib.HookSessionEnded, s.payload())
	s.status.Clear()
	s.locals.Clear()
	h.points.forgetSession(s.tag)
	h.statusChanged()
}

// Thread returns the handle of the conversation id of this session ("" for
// a session with one conversation). It starts nothing: StartThread runs
// the thread_started hooks.
func (s *Session) Thread(id string) *Thread { return &Thread{s: s, id: id} }

// StartThread returns the handle of conversation id and runs its
// thread_started hooks.
func (s *Session) StartThread(ctx context.Context, id string) *Thread {
	t := s.Thread(id)
	t.s.h.threadStarted(t.bind(ctx), id)
	return t
}

// bind returns ctx carrying the session: every callback run under it
// serves this session.
func (s *Session) bind(ctx context.Context) context.Context {
	return contrib.WithSession(ctx, s.scope)
}

// sessionOf returns the session a call serves, or the host's defaults where
// none is served (attach, timers, the watcher).
func (h *Host) sessionOf(ctx context.Context) *Session {
	if sv, ok := contrib.SessionFrom(ctx).(*served); ok && sv.s.h == h {
		return sv.s
	}
	return h.base
}

// factsOf returns the facts of the session a call serves.
func (h *Host) factsOf(ctx context.Context) Facts { return h.sessionOf(ctx).Facts() }

// eachSession calls fn with the host's defaults and every live session.
func (h *Host) eachSession(fn func(*Session)) {
	h.order.mu.Lock()
	all := make([]*Session, 0, len(h.order.live)+1)
	all = append(all, h.base)
	for s := range h.order.live {
		if s != h.base {
			all = append(all, s)
		}
	}
	h.order.mu.Unlock()
	for _, s := range all {
		fn(s)
	}
}

// served is a session as plugin code reaches it: the contrib.SessionScope
// bound to each call's context, with the session views, model epochs and
// status overlay builtins asks for.
type served struct{ s *Session }

var (
	_ contrib.SessionScope   = (*served)(nil)
	_ builtins.SessionSource = (*served)(nil)
	_ builtins.ModelEpochs   = (*served)(nil)
	_ builtins.StatusScope   = (*served)(nil)
)

func (v *served) Facts() contrib.Facts    { return internalHostFacts(v.s.Facts()) }
func (v *served) Locals() *contrib.Locals { return &v.s.locals }
func (v *served) StatusOverlay() any      { return &v.s.status }
func (v *served) Session() *builtins.ModelFacts {
	if f := v.s.model.Load(); f != nil {
		c := internalFacts(*f)
		return &c
	}
	return nil
}

func (v *served) Review() *builtins.ReviewFacts {
	if r := v.s.review.Load(); r != nil {
		c := internalReview(*r)
		return &c
	}
	return nil
}

// ModelEpoch: session and images share the session client's epoch, review
// has its own.
func (v *served) ModelEpoch(role contrib.ModelRole) uint64 {
	if ModelRole(role) == RoleReview {
		return v.s.reviewEpoch.Load()
	}
	return v.s.sessionEpoch.Load()
}

// sessionOrder is the bookkeeping of the attach-before-session_started
// guarantee (sessionorder.go) for every live session.
type sessionOrder struct {
	mu       sync.Mutex
	attached map[string]string // plugin → generation whose attach finished
	live     map[*Session]struct{}
}
