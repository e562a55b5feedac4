package starhost

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/models"
)

// ModelRole names a model client: session, images or review (CC26).
type ModelRole string

// The model client roles. RoleImages is the session model's image client.
const (
	RoleSession ModelRole = "session"
	RoleImages  ModelRole = "images"
	RoleReview  ModelRole = "review"
)

// Message is one chat message of a model request.
type Message struct {
	// Role is "system", "user" or "assistant".
	Role string `json:"role"`
	// Content is the message's text.
	Content string `json:"content"`
}

// ModelRequest is one completion request of a model client.
type ModelRequest struct {
	// Messages is the conversation, system messages included, in order.
	Messages []Message
	// MaxTokens bounds the reply; 0 leaves the model's default.
	MaxTokens int
	// Thinking is the effort token to send: ThinkingDefault sends none,
	// ThinkingOff turns thinking off, anything else is one of the model's
	// listed effort tokens (CC21).
	Thinking string
	// Images are image URLs or data: URLs; only image clients
	// (RoleImages) accept them.
	Images []string
}

// ModelReply is a model's answer.
type ModelReply struct {
	// Text is the answer's text.
	Text string
	// FinishReason is the provider's reason for stopping ("stop",
	// "length", ...), "" when it gave none.
	FinishReason string
	// InputTokens and OutputTokens are the usage the provider reported,
	// 0 when it reported none.
	InputTokens  int
	OutputTokens int
}

// ModelClient completes requests against one provider and model.
// Implementations must be safe for concurrent use.
type ModelClient interface {
	// Complete sends req and returns the model's reply. It must honour
	// ctx: a call blocked on the network returns when ctx ends. A failure
	// with a stable code is best a *ModelError: plugins see its code.
	Complete(ctx context.Context, req ModelRequest) (ModelReply, error)
}

// DefaultModelTimeout bounds one HTTP model call of the host's own adapters
// and of plugin client factories, retries included.
const DefaultModelTimeout = 2 * time.Minute

// ModelProvider supplies model clients in place of providers.json
// (Options.Models): an agent host with its own model stack hands plugins
// clients on its providers.
type ModelProvider interface {
	// NewClient must return a fresh client each time, separate from the
	// clients the host uses for turns and review (CC25). Its error is
	// shown to the plugin that asked, and as a ModelClientFailed note when
	// the host connects (Session.Connect).
	NewClient(ctx context.Context, spec ClientSpec) (ModelClient, error)
}

// ClientSpec says which client to build: for which plugin ("" for the
// host's own), which role and the model's published facts.
type ClientSpec struct {
	// Plugin is the id of the plugin that asked, "" for the host's own
	// connect.
	Plugin string
	// Role is the client's role.
	Role ModelRole
	// Facts are the facts of the model the role uses now.
	Facts ModelFacts
}

// ModelCall reports one plugin model call to the embedder
// (Options.ModelCalls). Plugin model calls spend the operator's credentials
// but are not turns: they are not part of the transcript, the approval path
// or the turn budget (CC24).
type ModelCall struct {
	// Plugin is the id of the plugin that made the call.
	Plugin string
	// Role is the role of the client it used.
	Role ModelRole
	// Provider and Model name the model called.
	Provider string
	Model    string
	// Elapsed is the call's duration, retries included.
	Elapsed time.Duration
	// InputTokens and OutputTokens are the reported usage (0 when none).
	InputTokens  int
	OutputTokens int
	// Err is "" on success, else the error's text; it never contains the
	// API key.
	Err string
}

// modelClient builds a fresh client of role for plugin on the currently
// published model (CC25): through Options.Models when set, else from
// providers.json with the protocol's adapter (package models: the six
// built-in ones and Options.Adapters) or a plugin's client factory. Every
// call of the client is reported to Options.ModelCalls. It fails when the
// session is not published, when review is not independent (review), when
// the model takes no images (images), or when the client cannot be built.
func (h *Host) modelClient(ctx context.Context, plugin string, role ModelRole) (contrib.ModelClient, error) {
	facts, err := h.sessionOf(ctx).roleFacts(role)
	if err != nil {
		return nil, err
	}
	var c contrib.ModelClient
	if h.opts.Models != nil {
		var ec ModelClient
		ec, err = h.opts.Models.NewClient(ctx, ClientSpec{Plugin: plugin, Role: role, Facts: facts})
		c = internalClient(ec)
	} else {
		c, err = h.builtinClient(ctx, role, facts)
	}
	if err != nil {
		return nil, h.redactErr(err)
	}
	return &reportingClient{h: h, plugin: plugin, role: role, facts: facts, client: c}, nil
}

func (s *Session) roleFacts(role ModelRole) (ModelFacts, error) {
	m := s.model.Load()
	if m == nil {
		return ModelFacts{}, codeErrorf(ErrNoModel, "the session has no model yet")
	}
	switch role {
	case RoleSession:
		return *m, nil
	case RoleImages:
		if !m.ImageInput {
			return ModelFacts{}, codeErrorf(ErrNotSupported, "%s/%s takes no image input", m.Provider, m.Model)
		}
		return *m, nil
	case RoleReview:
		r := s.review.Load()
		if r == nil || !r.Independent {
			return ModelFacts{}, codeErrorf(ErrNoModel, "review is not independent: it uses the session model")
		}
		return r.Model, nil
	}
	return ModelFacts{}, codeErrorf(ErrInvalidArguments, "unknown model role %q", role)
}

// builtinClient builds a client from providers.json: the host's adapter
// for the protocol (built in or the embedder's, Options.Adapters), else
// the client factory of the first plugin in load order that claims it
// (CC8).
func (h *Host) builtinClient(ctx context.Context, role ModelRole, f ModelFacts) (contrib.ModelClient, error) {
	p, m, err := h.lookup(f.Provider + "/" + f.Model)
	if err != nil {
		return nil, err
	}
	key := p.APIKey()
	proto := strings.ToLower(p.Protocol)
	if ad, ok := h.models.adapters.Lookup(proto); ok {
		return ad.NewClient(ctx, models.ClientConfig{Provider: p, Model: m, Facts: internalFacts(f), APIKey: key,
			Timeout: h.opts.ModelTimeout, Images: role == RoleImages})
	}
	if pkg, ok := models.Package(proto); ok {
		return nil, fmt.Errorf("protocol %q of provider %s has no adapter in this program: its embedder must import _ %q", proto, p.Name, pkg)
	}
	return h.factoryClient(ctx, p, m, f, key)
}
