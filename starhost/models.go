package starhost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/models"
)

// ModelRole names a model client: session, images or review (CC26).
type ModelRole = contrib.ModelRole

// The model client roles.
const (
	RoleSession = contrib.RoleSession
	RoleImages  = contrib.RoleImages
	RoleReview  = contrib.RoleReview
)

// ModelClient, ModelRequest, ModelReply and Message are the model-call
// types plugins' clients use (contrib).
type (
	ModelClient  = contrib.ModelClient
	ModelRequest = contrib.ModelRequest
	ModelReply   = contrib.ModelReply
	Message      = contrib.Message
)

// DefaultModelTimeout bounds one HTTP model call of the host's own adapters
// and of plugin client factories, retries included.
const DefaultModelTimeout = models.DefaultTimeout

// ModelProvider supplies model clients in place of providers.json
// (Options.Models): an agent host with its own model stack hands plugins
// clients on its providers. NewClient must return a fresh instance each
// time, separate from the clients the host uses for turns and review
// (CC25).
type ModelProvider interface {
	NewClient(ctx context.Context, spec ClientSpec) (ModelClient, error)
}

// ClientSpec says which client to build: for which plugin ("" for the
// host's own), which role and the model's published facts.
type ClientSpec struct {
	Plugin string
	Role   ModelRole
	Facts  ModelFacts
}

// ModelCall reports one plugin model call to the embedder
// (Options.ModelCalls). Plugin model calls spend the operator's credentials
// but are not turns: they are not part of the transcript, the approval path
// or the turn budget (CC24). Err is "" on success; it never contains the API
// key.
type ModelCall struct {
	Plugin       string
	Role         ModelRole
	Provider     string
	Model        string
	Elapsed      time.Duration
	InputTokens  int
	OutputTokens int
	Err          string
}

var (
	_ builtins.SessionSource = (*Host)(nil)
	_ builtins.ModelSource   = (*Host)(nil)
)

// ModelEpoch implements builtins.ModelSource: session and images share the
// session client's epoch, review has its own.
func (h *Host) ModelEpoch(role ModelRole) uint64 {
	if role == RoleReview {
		return h.models.reviewEpoch.Load()
	}
	return h.models.sessionEpoch.Load()
}

// ModelClient builds a fresh client of role for plugin on the currently
// published model (CC25): through Options.Models when set, else from
// providers.json with the protocol's adapter (package models: the six
// built-in ones and Options.Adapters) or a plugin's client factory. Every call of the client is reported to Options.ModelCalls.
// It fails when the session is not published, when review is not
// independent (review), when the model takes no images (images), or when
// the client cannot be built.
func (h *Host) ModelClient(ctx context.Context, plugin string, role ModelRole) (ModelClient, error) {
	facts, err := h.roleFacts(role)
	if err != nil {
		return nil, err
	}
	var c ModelClient
	if h.opts.Models != nil {
		c, err = h.opts.Models.NewClient(ctx, ClientSpec{Plugin: plugin, Role: role, Facts: facts})
	} else {
		c, err = h.builtinClient(ctx, role, facts)
	}
	if err != nil {
		return nil, h.redactErr(err)
	}
	return &reportingClient{h: h, plugin: plugin, role: role, facts: facts, client: c}, nil
}

func (h *Host) roleFacts(role ModelRole) (ModelFacts, error) {
	s := h.models.session.Load()
	if s == nil {
		return ModelFacts{}, errors.New("the session has no model yet")
	}
	switch role {
	case RoleSession:
		return *s, nil
	case RoleImages:
		if !s.ImageInput {
			return ModelFacts{}, fmt.Errorf("%s/%s takes no image input", s.Provider, s.Model)
		}
		return *s, nil
	case RoleReview:
		r := h.models.review.Load()
		if r == nil || !r.Independent {
			return ModelFacts{}, errors.New("review is not independent: it uses the session model")
		}
		return r.Model, nil
	}
	return ModelFacts{}, fmt.Errorf("unknown model role %q", role)
}

// builtinClient builds a client from providers.json: the host's adapter
// for the protocol (built in or the embedder's, Options.Adapters), else
// the client factory of the first plugin in load order that claims it
// (CC8).
func (h *Host) builtinClient(ctx context.Context, role ModelRole, f ModelFacts) (ModelClient, error) {
	p, m, err := h.lookup(f.Provider + "/" + f.Model)
	if err != nil {
		return nil, err
	}
	key := p.APIKey()
	proto := strings.ToLower(p.Protocol)
	if ad, ok := h.models.adapters.Lookup(proto); ok {
		return ad.NewClient(ctx, models.ClientConfig{Provider: p, Model: m, Facts: f, APIKey: key,
			HTTP: h.httpClient(), Images: role == RoleImages})
	}
	if contrib.IsReservedProtocol(proto) {
		return nil, fmt.Errorf("protocol %q of provider %s is reserved by the host but has no adapter", proto, p.Name)
	}
	return h.factoryClient(ctx, p, m, f, key)
}

// httpClient is the bounded, retrying client of every model call.
func (h *Host) httpClient() *http.Client { return models.HTTPClient(h.opts.ModelTimeout) }
