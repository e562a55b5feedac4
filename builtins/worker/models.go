package worker

import (
	"context"
	"errors"
	"strings"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// Model clients (ctx.models, CC24–CC27) cross as handles: the host builds
// and holds each client — with the operator's credentials, which never
// enter the worker — and the worker's client forwards Complete to it.

var _ builtins.ModelSource = (*remoteServices)(nil)

func (s *remoteServices) ModelClient(ctx context.Context, _ string, role contrib.ModelRole) (contrib.ModelClient, error) {
	var id uint64
	if err := s.conn.Call(ctx, wire.MethodModelClient, role, &id); err != nil {
		return nil, remoteErr(err)
	}
	return &remoteModel{conn: s.conn, id: id}, nil
}

func (s *remoteServices) ModelEpoch(role contrib.ModelRole) uint64 {
	var epoch uint64
	s.call(wire.MethodModelEpoch, role, &epoch)
	return epoch
}

// remoteModel is a model client the host holds.
type remoteModel struct {
	conn link
	id   uint64
}

func (m *remoteModel) Complete(ctx context.Context, req contrib.ModelRequest) (contrib.ModelReply, error) {
	var out wire.Completed
	if err := m.conn.Call(ctx, wire.MethodModelComplete, wire.ModelCall{Client: m.id, Request: req}, &out); err != nil {
		return out.Reply, remoteErr(err)
	}
	if out.Err == nil {
		return out.Reply, nil
	}
	if out.Err.Code == "" {
		return out.Reply, remoteErr(&wire.RemoteError{Message: out.Err.Message})
	}
	// The code crosses as it was, so complete(on_error = "return") gives
	// the plugin the same error(code, message) as in the host process.
	return out.Reply, out.Err
}

// remoteErr is an error of the other side as this side reports it: its
// message, and contrib.ErrNotSupported when it was one (CC9).
func remoteErr(err error) error {
	var re *wire.RemoteError
	if !errors.As(err, &re) {
		return err
	}
	if msg, ok := strings.CutPrefix(re.Message, contrib.ErrNotSupported.Error()+": "); ok {
		return contrib.NotSupported("%s", msg)
	}
	return errors.New(re.Message)
}

// The host side of model clients.

func (h *HostSide) modelSource() (builtins.ModelSource, error) {
	src, ok := h.req.Services.(builtins.ModelSource)
	// The worker checks the capability too; the host does not take its word.
	if !ok || !hasCapability(h.req, "models") || h.req.Source == contrib.SourceBuiltin {
		return nil, errors.New("this plugin gets no model clients")
	}
	return src, nil
}

func hasCapability(req contrib.ActivationRequest, c string) bool {
	for _, have := range req.Capabilities {
		if have == c {
			return true
		}
	}
	return false
}

func (h *HostSide) modelClient(ctx context.Context, role contrib.ModelRole) (uint64, error) {
	src, err := h.modelSource()
	if err != nil {
		return 0, err
	}
	c, err := src.ModelClient(ctx, h.req.Plugin, role)
	if err != nil {
		return 0, err
	}
	return h.clients.add(c), nil
}

func (h *HostSide) modelEpoch(role contrib.ModelRole) (uint64, error) {
	src, err := h.modelSource()
	if err != nil {
		return 0, err
	}
	return src.ModelEpoch(role), nil
}

func (h *HostSide) modelComplete(ctx context.Context, call wire.ModelCall) (wire.Completed, error) {
	c, ok := h.clients.get(call.Client)
	if !ok {
		return wire.Completed{}, errors.New("no such model client")
	}
	reply, err := c.Complete(ctx, call.Request)
	if err != nil {
		return wire.Completed{Reply: reply, Err: wire.NewCodedError(err)}, nil
	}
	return wire.Completed{Reply: reply}, nil
}
