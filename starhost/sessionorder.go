package starhost

import (
	"context"
	"sync"

	"github.com/crystal-star/crystal-star/contrib"
)

// The host, not the embedder, guarantees that a plugin's attach runs
// before its session_started hooks (CC3, MC8). Session.Start only marks
// the session as started; the hooks of a generation run once its attach
// stages have finished — at once for generations already attached, later
// for generations attached afterwards (the first Start, a reload, an
// enable). So every generation sees session_started exactly once, after
// its own attach, whether the embedder calls Session.Start before Host.Start,
// after it, or while plugins reload.

// sessionOrder is the bookkeeping of that guarantee.
type sessionOrder struct {
	mu       sync.Mutex
	started  bool              // between Session.Start and Session.End
	attached map[string]string // plugin → generation whose attach finished
	fired    map[string]string // plugin → generation that saw session_started
}

// Start starts the session for plugins: the session_started hooks of
// every attached generation run now, in load order, and those of
// generations attached later run right after their attach (MC8). The hooks
// are read only. Calling it again while started does nothing more.
func (s *Session) Start(ctx context.Context) {
	h := s.h
	h.session.mu.Lock()
	h.session.started = true
	due := h.session.due("")
	h.session.mu.Unlock()
	h.fireSessionStarted(ctx, due)
}

// End runs the session_ended hooks (read only) and ends the session: a
// later Start starts a new one.
func (s *Session) End(ctx context.Context) {
	h := s.h
	h.session.mu.Lock()
	h.session.started = false
	h.session.fired = nil
	h.session.mu.Unlock()
	h.hook(ctx, contrib.HookSessionEnded, h.sessionPayload())
}

func (h *Host) sessionPayload() map[string]any {
	f := h.Session().Facts()
	return map[string]any{"workspace": f.Workspace, "session_id": f.SessionID, "approval_mode": f.ApprovalMode}
}

// attachedForSession is the lifecycle's Attached callback: the attach
// stages of plugin's generation have run, so its session_started hooks may.
func (h *Host) attachedForSession(plugin string, _ contrib.Instance) {
	gen := h.manager.Generation(plugin)
	h.session.mu.Lock()
	if h.session.attached == nil {
		h.session.attached = map[string]string{}
	}
	h.session.attached[plugin] = gen
	due := h.session.due(plugin)
	h.session.mu.Unlock()
	h.fireSessionStarted(context.Background(), due)
}

// due returns the plugins (one, or all when plugin is "") whose attached
// generation has not seen session_started, and marks them as having seen
// it. s.mu is held.
func (s *sessionOrder) due(plugin string) map[string]string {
	if !s.started {
		return nil
	}
	if s.fired == nil {
		s.fired = map[string]string{}
	}
	out := map[string]string{}
	for p, gen := range s.attached {
		if (plugin == "" || p == plugin) && gen != "" && s.fired[p] != gen {
			out[p], s.fired[p] = gen, gen
		}
	}
	return out
}

// fireSessionStarted runs the session_started hooks of the given
// generations, in load order.
func (h *Host) fireSessionStarted(ctx context.Context, gens map[string]string) {
	if len(gens) == 0 {
		return
	}
	var runs []contrib.HookRun
	for _, r := range h.registry.View().HookRuns(contrib.HookSessionStarted) {
		if gens[r.Plugin] == r.Generation {
			runs = append(runs, r)
		}
	}
	contrib.RunHooks(ctx, runs, contrib.HookSessionStarted, h.sessionPayload(), h.note)
}
