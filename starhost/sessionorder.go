package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/contrib"
)

// The host, not the embedder, guarantees that a plugin's attach runs
// before its session_started hooks (CC3, MC8), for every session. A new
// session is started at once; the hooks of a generation run for it once
// that generation's attach stages have finished — at once for generations
// already attached, later for generations attached afterwards (the first
// Start, a reload, an enable). So every generation sees session_started
// exactly once per session, after its own attach, whether the embedder
// creates the session before Host.Start, after it, or while plugins
// reload. The hooks run with the session bound: they see its facts.

// start marks s live and started and runs the hooks due for it.
func (h *Host) start(ctx context.Context, s *Session) {
	h.order.mu.Lock()
	if h.order.live == nil {
		h.order.live = map[*Session]struct{}{}
	}
	h.order.live[s] = struct{}{}
	s.started = true
	due := h.order.due(s, "")
	h.order.mu.Unlock()
	h.fireSessionStarted(s.bind(ctx), s, due)
}

func (s *Session) payload() map[string]any {
	f := s.Facts()
	return map[string]any{"workspace": f.Workspace, "session_id": f.SessionID, "approval_mode": f.ApprovalMode}
}

// attachedForSession is the lifecycle's Attached callback: the attach
// stages of plugin's generation have run, so its session_started hooks may,
// for every live session.
func (h *Host) attachedForSession(plugin string, _ contrib.Instance) {
	gen := h.manager.Generation(plugin)
	h.order.mu.Lock()
	if h.order.attached == nil {
		h.order.attached = map[string]string{}
	}
	h.order.attached[plugin] = gen
	type run struct {
		s   *Session
		due map[string]string
	}
	var runs []run
	for s := range h.order.live {
		if due := h.order.due(s, plugin); len(due) > 0 {
			runs = append(runs, run{s, due})
		}
	}
	h.order.mu.Unlock()
	for _, r := range runs {
		h.fireSessionStarted(r.s.bind(context.Background()), r.s, r.due)
	}
}

// due returns the plugins (one, or all when plugin is "") whose attached
// generation has not seen s start, and marks them as having seen it. o.mu
// is held.
func (o *sessionOrder) due(s *Session, plugin string) map[string]string {
	if !s.started {
		return nil
	}
	if s.fired == nil {
		s.fired = map[string]string{}
	}
	var out map[string]string
	for p, gen := range o.attached {
		if (plugin == "" || p == plugin) && gen != "" && s.fired[p] != gen {
			if out == nil {
				out = map[string]string{}
			}
			out[p], s.fired[p] = gen, gen
		}
	}
	return out
}

// fireSessionStarted runs the session_started hooks of the given
// generations for s, in load order.
func (h *Host) fireSessionStarted(ctx context.Context, s *Session, gens map[string]string) {
	if len(gens) == 0 {
		return
	}
	var runs []contrib.HookRun
	for _, r := range h.registry.View().HookRuns(contrib.HookSessionStarted) {
		if gens[r.Plugin] == r.Generation {
			runs = append(runs, r)
		}
	}
	contrib.RunHooks(ctx, runs, contrib.HookSessionStarted, s.payload(), h.note)
}
