package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// HostSide answers one worker's callbacks with the host's services: the
// embedder's contrib.Services and the optional builtins interfaces it
// implements. It is safe for concurrent use.
type HostSide struct {
	req  contrib.ActivationRequest
	call func(ctx context.Context, what, method string, in, out any) error

	mu      sync.Mutex
	sink    builtins.StatusSink
	asked   bool
	closed  bool
	clients handles[contrib.ModelClient] // model clients held for the worker
}

// NewHostSide returns the host side of req's generation. call calls the
// worker (under the callback timeout): entries the plugin adds at run time
// run there.
func NewHostSide(req contrib.ActivationRequest, call func(ctx context.Context, what, method string, in, out any) error) *HostSide {
	return &HostSide{req: req, call: call}
}

// Handle answers one call from the worker.
func (h *HostSide) Handle(ctx context.Context, method string, body []byte) (any, error) {
	switch method {
	case wire.MethodSession:
		src, ok := scopeOf(ctx).(builtins.SessionSource) // asked within a call serving a session
		if !ok {
			src, ok = h.req.Services.(builtins.SessionSource)
		}
		if !ok {
			return sessionReply{}, nil
		}
		return sessionReply{Session: src.Session(), Review: src.Review()}, nil
	case wire.MethodEnv:
		src, ok := h.req.Services.(builtins.EnvironmentSource)
		if !ok {
			return nil, nil
		}
		return src.Environment(), nil
	case wire.MethodDataDirs:
		src, ok := h.req.Services.(builtins.DataSource)
		if !ok {
			return wire.DataDirs{}, nil
		}
		// The plugin's own directories only, whatever the worker asks.
		g, p, refused := src.DataDirs(h.req.Plugin, h.req.Directory, h.req.Source)
		return wire.DataDirs{Global: g, Project: p, Refused: refused}, nil
	case wire.MethodStatusSink:
		return h.statusSink() != nil, nil
	case wire.MethodModelClient, wire.MethodModelEpoch:
		var role contrib.ModelRole
		if err := json.Unmarshal(body, &role); err != nil {
			return nil, err
		}
		if method == wire.MethodModelEpoch {
			if epochs, ok := scopeOf(ctx).(builtins.ModelEpochs); ok {
				return epochs.ModelEpoch(role), nil
			}
			return h.modelEpoch(role)
		}
		return h.modelClient(ctx, role)
	case wire.MethodAddEntry:
		var re wire.RuntimeEntry
		if err := json.Unmarshal(body, &re); err != nil {
			return nil, err
		}
		return h.addEntry(re)
	case wire.MethodReleaseEntry:
		var id string
		if err := json.Unmarshal(body, &id); err != nil {
			return nil, err
		}
		reg, ok := h.req.Services.(builtins.PointRegistrar)
		return ok && reg.ReleaseEntry(h.req.Plugin, id), nil
	case wire.MethodAsk:
		var q contrib.Question
		if err := json.Unmarshal(body, &q); err != nil {
			return nil, err
		}
		return h.ask(ctx, q)
	case wire.MethodModelComplete:
		var call wire.ModelCall
		if err := json.Unmarshal(body, &call); err != nil {
			return nil, err
		}
		return h.modelComplete(ctx, call)
	}
	return nil, fmt.Errorf("unknown host service %q", method)
}

func (h *HostSide) statusSink() builtins.StatusSink {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.asked && !h.closed {
		h.asked = true
		if src, ok := h.req.Services.(builtins.StatusSource); ok {
			h.sink = src.StatusSink(h.req.Plugin, h.req.Generation)
		}
	}
	return h.sink
}

// Notify handles a one-way message from the worker. ctx carries the values
// of the host's call the message was sent within (wire.Conn.NotifyWithin):
// a status update made while serving a session goes to that session's
// line, by the rule of builtins.SetStatus that ctx.status follows in
// process.
func (h *HostSide) Notify(ctx context.Context, method string, body []byte) {
	switch method {
	case wire.NotifyNote, wire.NotifyFault:
		var d contrib.Diagnostic
		if json.Unmarshal(body, &d) != nil {
			return
		}
		d.Plugin = h.req.Plugin // a worker speaks for its own plugin only
		if method == wire.NotifyFault && h.req.Fault != nil {
			h.req.Fault(d)
		} else if h.req.Services != nil {
			h.req.Services.Note(d)
		}
	case wire.NotifyStatusSet, wire.NotifyStatusClear:
		var u wire.StatusUpdate
		if json.Unmarshal(body, &u) != nil {
			return
		}
		h.mu.Lock()
		sink := h.sink
		h.mu.Unlock()
		if sink == nil {
			return
		}
		var note func(string)
		if u.Pos != nil && h.req.Services != nil {
			// The note of a name the plugin did not declare has the
			// ctx.status call's place, as in process.
			pos := *u.Pos
			note = func(msg string) {
				h.req.Services.Note(contrib.Diag(contrib.StatusFieldUnknown, h.req.Plugin, pos, "%s", msg))
			}
		}
		builtins.SetStatus(ctx, sink, u.Name, u.Text, method == wire.NotifyStatusClear, note)
	case wire.NotifyStatusRetire:
		h.Close()
	}
}

// Close retires the generation's status sink: a killed worker never says
// so itself.
func (h *HostSide) Close() {
	h.mu.Lock()
	sink := h.sink
	h.sink, h.closed = nil, true
	h.mu.Unlock()
	h.clients.clear()
	if sink != nil {
		sink.Retire()
	}
}
