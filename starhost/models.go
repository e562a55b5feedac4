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

// redact removes every configured API key from s.
func (h *Host) redact(s string) string {
	if keys := h.models.secrets.Load(); keys != nil {
		for _, k := range *keys {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}

// redactErr returns err without API keys in its text; an error whose text
// holds none is returned as is, so errors.Is still sees through it, and a
// *ModelError keeps its stable code.
func (h *Host) redactErr(err error) error {
	if msg := h.redact(err.Error()); msg != err.Error() {
		var me *ModelError
		if errors.As(err, &me) {
			c := *me
			c.Detail = h.redact(c.Detail)
			return &c
		}
		return errors.New(msg)
	}
	return err
}

// redactNote removes API keys from every text of a note (a server's error
// echoing the key must not reach the embedder's notes).
func (h *Host) redactNote(n Note) Note {
	n.Message, n.Remedy, n.Detail = h.redact(n.Message), h.redact(n.Remedy), h.redact(n.Detail)
	return n
}

// reportingClient reports each call to Options.ModelCalls and keeps API
// keys out of errors and replies.
type reportingClient struct {
	h      *Host
	plugin string
	role   ModelRole
	facts  ModelFacts
	client ModelClient
}

func (c *reportingClient) Complete(ctx context.Context, req ModelRequest) (ModelReply, error) {
	start := time.Now()
	reply, err := c.client.Complete(ctx, req)
	reply.Text = c.h.redact(reply.Text)
	call := ModelCall{Plugin: c.plugin, Role: c.role, Provider: c.facts.Provider, Model: c.facts.Model,
		Elapsed: time.Since(start), InputTokens: reply.InputTokens, OutputTokens: reply.OutputTokens}
	if err != nil {
		err = c.h.redactErr(err)
		call.Err = err.Error()
	}
	if c.h.opts.ModelCalls != nil && c.plugin != "" {
		c.h.opts.ModelCalls(call)
	}
	return reply, err
}

// Connect builds the host's own session client (and the review client when
// review is independent) the way a turn would, and reports a failure — a
// factory's not_supported for the selected tier or speed, a reserved
// protocol without an adapter — as a ModelClientFailed note (CC9). The host
// connects after Start and again whenever the session or review client is
// rebuilt (/model, /tier, /speed, /approval model). Nothing is sent.
func (h *Host) Connect(ctx context.Context) error {
	var errs []error
	roles := []ModelRole{RoleSession}
	if r := h.models.review.Load(); r != nil && r.Independent {
		roles = append(roles, RoleReview)
	}
	if h.models.session.Load() == nil {
		return nil
	}
	for _, role := range roles {
		f, err := h.roleFacts(role)
		if err == nil {
			if h.opts.Models != nil {
				_, err = h.opts.Models.NewClient(ctx, ClientSpec{Role: role, Facts: f})
			} else {
				_, err = h.builtinClient(ctx, role, f)
			}
		}
		if err != nil {
			err = fmt.Errorf("the %s client for %s/%s cannot be built: %s", role, f.Provider, f.Model, h.redact(err.Error()))
			h.Note(contrib.Diag(contrib.ModelClientFailed, "", contrib.Pos{}, "%v", err))
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// reconnect connects again once the host has started (before that,
// plugins' factories are not loaded yet).
func (h *Host) reconnect(ctx context.Context) {
	if h.models.started.Load() && !h.models.closing.Load() {
		_ = h.Connect(ctx)
	}
}

// startModels publishes the session before plugins attach; finishModels
// connects once every plugin (and so every client factory) is loaded.
func (h *Host) startModels() { h.startSession() }

func (h *Host) finishModels(ctx context.Context) {
	h.models.started.Store(true)
	h.rememberFactories()
	_ = h.Connect(ctx)
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
		h.models.sessionEpoch.Add(1)
		h.models.reviewEpoch.Add(1)
		_ = h.Connect(context.Background())
	}
}

// rememberFactories records which generation serves the session's and the
// review's protocols; it reports whether that changed.
func (h *Host) rememberFactories() bool {
	owners := map[string]string{}
	view := h.registry.View()
	for _, f := range []*ModelFacts{h.models.session.Load(), reviewModel(h.models.review.Load())} {
		if f == nil || contrib.IsReservedProtocol(f.Protocol) || f.Protocol == "" {
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
