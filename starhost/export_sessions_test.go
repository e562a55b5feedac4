package starhost

import "context"

// Session returns the host's defaults as a session, for the tests written
// when a host had one session: what they set there is what callbacks see
// where no session is served, and what new sessions start from.
func (h *Host) Session() *Session { return h.base }

// Start starts the host's defaults as a session (session_started hooks),
// as the one session of old did.
func (s *Session) Start(ctx context.Context) {
	s.ended.Store(false)
	s.h.start(ctx, s)
}

// DispatchUnbound is Dispatch as Host.Dispatch ran it before sessions: on
// the host's defaults, with no session bound to ctx (the benchmark's
// baseline).
func (h *Host) DispatchUnbound(ctx context.Context, thread string, call ToolCall, invoke Invoker) DispatchResult {
	return h.dispatch(ctx, thread, call, invoke)
}
