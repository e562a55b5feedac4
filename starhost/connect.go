// Connecting the session and review clients, and reconnecting when the
// plugin serving their protocol changes generation.

package starhost

import (
	"context"
	"errors"

	"github.com/crystal-star/crystal-star/contrib"
)

// Client returns a client for the host's own calls with the model of role
// (RoleSession or RoleReview): the turns of an embedder that relies on
// {home}/providers.json instead of a model stack of its own. It is built
// the way a plugin's is (Options.Models, Adapters, the built-in adapters or
// a plugin's client factory for the protocol), with the API key kept in the
// host; calls are not reported to Options.ModelCalls, which is for plugins'
// calls. A fresh client reflects the current selection: build one per turn.
func (s *Session) Client(ctx context.Context, role ModelRole) (ModelClient, error) {
	c, err := s.h.modelClient(s.bind(ctx), "", role)
	if err != nil {
		return nil, err
	}
	return hostClient{c: c}, nil
}

// Connect builds the host's own session client (and the review client when
// review is independent) the way a turn would, and reports a failure — a
// factory's not_supported for the selected tier or speed, a reserved
// protocol without an adapter — as a ModelClientFailed note (CC9). The host
// connects after Start and again whenever the session or review client is
// rebuilt (SelectModel, SetServiceTier, SetSpeed, SelectReviewModel).
// Nothing is sent. The error joins the failures of each client, each
// wrapping ErrNotSupported or Code("ModelClientFailed").
func (s *Session) Connect(ctx context.Context) error {
	h := s.h
	var errs []error
	roles := []ModelRole{RoleSession}
	if r := s.review.Load(); r != nil && r.Independent {
		roles = append(roles, RoleReview)
	}
	if s.model.Load() == nil {
		return nil
	}
	for _, role := range roles {
		f, err := s.roleFacts(role)
		if err == nil {
			if h.opts.Models != nil {
				_, err = h.opts.Models.NewClient(ctx, ClientSpec{Role: role, Facts: f})
			} else {
				_, err = h.builtinClient(ctx, role, f)
			}
		}
		if err != nil {
			failed := codeErrorf(Code(contrib.ModelClientFailed), "the %s client for %s/%s cannot be built: %s", role, f.Provider, f.Model, h.redact(err.Error()))
			h.note(contrib.Diag(contrib.ModelClientFailed, "", contrib.Pos{}, "%s", message(failed)))
			if errors.Is(err, ErrNotSupported) {
				failed = withCode(failed, ErrNotSupported)
			}
			err = failed
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// reconnect connects again once the host has started (before that,
// plugins' factories are not loaded yet).
func (s *Session) reconnect(ctx context.Context) {
	h := s.h
	if h.models.started.Load() && !h.models.closing.Load() {
		_ = s.Connect(ctx)
	}
}

// startModels publishes the session before plugins attach; finishModels
// connects once every plugin (and so every client factory) is loaded.
func (h *Host) startModels() { h.startSession() }

func (h *Host) finishModels(ctx context.Context) {
	h.models.started.Store(true)
	h.rememberFactories()
	_ = h.base.Connect(ctx)
}

// modelsEvent rebuilds the session and review clients when the plugin that
// serves their protocol changes generation: plugins' cached clients still
// point at the old generation's codec.
func (h *Host) modelsEvent(e Event) {
	if !h.models.started.Load() || h.models.closing.Load() || h.opts.Models != nil {
		return
	}
	switch e.Kind {
	case "activated", "reloaded", "stopped", "faulted":
	default:
		return
	}
	if h.rememberFactories() {
		h.eachSession(func(s *Session) {
			s.sessionEpoch.Store(newEpoch())
			s.reviewEpoch.Store(newEpoch())
		})
		_ = h.base.Connect(context.Background()) // the host's defaults; a session connects on its own
	}
}

// rememberFactories records which generation serves the session's and the
// review's protocols; it reports whether that changed.
func (h *Host) rememberFactories() bool {
	owners := map[string]string{}
	view := h.registry.View()
	var used []*ModelFacts
	h.eachSession(func(s *Session) { used = append(used, s.model.Load(), reviewModel(s.review.Load())) })
	for _, f := range used {
		if f == nil || contrib.IsReservedProtocol(f.Protocol) || f.Protocol == "" {
			continue
		}
		if _, seen := owners[f.Protocol]; seen {
			continue
		}
		_, owner, _ := view.ClientFactoryFor(f.Protocol)
		if owner != nil {
			owners[f.Protocol] = owner.Plugin + "@" + owner.Generation
		} else {
			owners[f.Protocol] = ""
		}
	}
	h.models.mu.Lock()
	defer h.models.mu.Unlock()
	changed := len(owners) != len(h.models.factoryOwner)
	for k, v := range owners {
		if h.models.factoryOwner[k] != v {
			changed = true
		}
	}
	h.models.factoryOwner = owners
	return changed
}

func reviewModel(r *ReviewFacts) *ModelFacts {
	if r == nil || !r.Independent {
		return nil
	}
	return &r.Model
}
