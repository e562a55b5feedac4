package starhost

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/models"
)

// Facts are the host facts every plugin callback sees on ctx (CC7, CC13).
// Strings the host does not have yet are empty. They never include the
// user's question.
type Facts struct {
	// Workspace is the workspace directory (ctx.workspace).
	Workspace string
	// SessionID identifies the session (ctx.session_id).
	SessionID string
	// Mode is the agent's mode, e.g. PlanMode (ctx.mode).
	Mode string
	// ApprovalMode is the approval mode (ctx.approval_mode).
	ApprovalMode string
	// Provider and Model name the session model (ctx.provider,
	// ctx.model); they follow Session.SetModel.
	Provider string
	Model    string
}

// ModelFacts are one model's facts as plugins see them on ctx.session and
// ctx.review (CC21): tokens, never API keys, endpoints, organisation or
// project.
type ModelFacts struct {
	// Provider and Model name the model as providers.json does.
	Provider string
	// Protocol is the provider's protocol token, lowercase.
	Protocol string
	Model    string
	// ContextWindow and MaxTokens are the model's limits, 0 when unknown.
	ContextWindow int
	MaxTokens     int
	// Temperature and TopP are nil for the model's default (None).
	Temperature *float64
	TopP        *float64
	// ImageInput says the model takes images (it has an images client).
	ImageInput bool
	// AudioInput and VideoInput are declared by the operator; nothing
	// accepts audio or video because of them.
	AudioInput bool
	VideoInput bool
	// Thinking is ThinkingDefault, ThinkingOff or one of the model's listed
	// effort tokens, lowercase and forwarded unchanged.
	Thinking string
	// ServiceTier and Speed are "" when unset (None). A listed "default"
	// tier is a tier token like any other.
	ServiceTier string
	Speed       string
}

// ReviewFacts are the review model's facts (CC22).
type ReviewFacts struct {
	// Independent says review has a model of its own; when false, review
	// uses the session model and plugins see no review model.
	Independent bool
	// Model is meaningful only when Independent.
	Model ModelFacts
}

// The host's thinking sentinels (CC21). Every other thinking value is one
// of the model's listed effort tokens.
const (
	ThinkingDefault = "default"
	ThinkingOff     = "off"
)

// Session is the host's live session: the facts plugins see on ctx, the
// session and review models with their settings, and the session's start
// and end. Get it with Host.Session; it is a view of the host, so every
// Session of one host is the same session. All methods are safe for
// concurrent use.
type Session struct{ h *Host }

// Session returns the host's session.
func (h *Host) Session() *Session { return &Session{h: h} }

// sessionState is the live session the host publishes to plugins, and the
// per-model settings behind it when the host manages models itself
// (providers.json). Reads are lock-free; writers hold mu.
type sessionState struct {
	session atomic.Pointer[ModelFacts]
	review  atomic.Pointer[ReviewFacts]
	// Epochs identify the current build of the session and review clients;
	// plugins' cached clients of an older epoch are discarded (CC27).
	sessionEpoch, reviewEpoch atomic.Uint64
	providers                 atomic.Pointer[models.Providers]
	adapters                  *models.Adapters // registered (linked) and Options.Adapters, by protocol
	providersData             []byte           // providers.json as last used (guarded by mu)
	started                   atomic.Bool
	closing                   atomic.Bool
	secrets                   atomic.Pointer[[]string] // API keys to redact

	mu           sync.Mutex
	sessionKey   string // "provider/model" selected from providers.json, or ""
	reviewKey    string // "" when review is not independent
	saved        map[string]modelSettings
	factoryOwner map[string]string // protocol → plugin@generation last built with
	factoryNotes sync.Map          // ClientFactoryTaken notes already given
}

// initAdapters takes the adapters the program linked (the packages under
// starhost/models it imports register them) and the embedder's.
func (h *Host) initAdapters() error {
	h.models.adapters = models.Registered()
	for _, ad := range h.opts.Adapters {
		if err := h.models.adapters.Register(internalAdapter(ad)); err != nil {
			return codeErrorf(ErrInvalidOptions, "Options.Adapters: %w", err)
		}
	}
	return nil
}

// modelSettings are the tokens saved for one model (CC22: the review model's
// thinking, tier and speed are the ones saved for that model).
type modelSettings struct{ thinking, tier, speed string }

// Facts returns the current host facts.
func (s *Session) Facts() Facts { return *s.h.facts.Load() }

// SetFacts publishes new host facts; callbacks see them on their next call.
// An empty Workspace keeps the host's workspace.
func (s *Session) SetFacts(f Facts) {
	if f.Workspace == "" {
		f.Workspace = s.h.opts.Workspace
	}
	s.h.facts.Store(&f)
}

// Model returns the session model's facts as published, or nil before the
// session model is published (CC20, CC23).
func (s *Session) Model() *ModelFacts {
	if f := s.h.models.session.Load(); f != nil {
		c := *f
		return &c
	}
	return nil
}

// Review returns the review facts as published, or nil before the session
// model is published.
func (s *Session) Review() *ReviewFacts {
	if r := s.h.models.review.Load(); r != nil {
		c := *r
		return &c
	}
	return nil
}

// SetModel publishes the session model's facts (CC20). Plugins see them
// on their next read of ctx.session; attach_session is not called again.
// Facts().Provider and Model (ctx.provider, ctx.model) follow them.
// Thinking is stored lowercase ("" means default); ServiceTier and Speed
// "" mean unset. When the provider, model, protocol, input kinds, tier or
// speed change, the session client counts as rebuilt: plugins' session and
// images clients are discarded (CC27).
func (s *Session) SetModel(f ModelFacts) {
	h := s.h
	normalize(&f)
	for { // ctx.provider and ctx.model follow the session (CC13)
		cur := h.facts.Load()
		next := *cur
		next.Provider, next.Model = f.Provider, f.Model
		if h.facts.CompareAndSwap(cur, &next) {
			break
		}
	}
	old := h.models.session.Swap(&f)
	if old == nil || clientKey(*old) != clientKey(f) {
		h.models.sessionEpoch.Add(1)
		h.reconnect(context.Background())
	}
}

// SetReview publishes the review facts (CC22). When Independent is false,
// review uses the session model and Model is cleared: plugins see no review
// model. Switching independence off, or changing the review model's client
// settings, discards plugins' review clients (CC27).
func (s *Session) SetReview(r ReviewFacts) {
	h := s.h
	if r.Independent {
		normalize(&r.Model)
	} else {
		r.Model = ModelFacts{}
	}
	old := h.models.review.Swap(&r)
	if old == nil || old.Independent != r.Independent || clientKey(old.Model) != clientKey(r.Model) {
		h.models.reviewEpoch.Add(1)
		h.reconnect(context.Background())
	}
}

func normalize(f *ModelFacts) {
	f.Thinking = strings.ToLower(strings.TrimSpace(f.Thinking))
	if f.Thinking == "" {
		f.Thinking = ThinkingDefault
	}
	f.ServiceTier = strings.ToLower(strings.TrimSpace(f.ServiceTier))
	f.Speed = strings.ToLower(strings.TrimSpace(f.Speed))
}

// clientKey is what a client is built from: a change rebuilds it. The
// thinking level is sent per request and rebuilds nothing.
func clientKey(f ModelFacts) string {
	return fmt.Sprintf("%s|%s|%s|%t|%t|%t|%s|%s", f.Provider, f.Protocol, f.Model, f.ImageInput, f.AudioInput, f.VideoInput, f.ServiceTier, f.Speed)
}

// providers returns providers.json as read (empty when absent or invalid).
func (h *Host) providers() *models.Providers {
	if p := h.models.providers.Load(); p != nil {
		return p
	}
	return &models.Providers{}
}

// startSession reads providers.json and publishes the session and review
// selected by config.toml (model, review_model, thinking, service_tier,
// speed), before any plugin attaches, unless the embedder already
// published a session model with SetModel. Problems are notes.
func (h *Host) startSession() {
	h.loadProviders(false)
	if h.models.session.Load() != nil {
		return // the embedder published its own session before Start
	}
	h.selectConfigured()
}

// selectConfigured selects the session and review models config.toml
// names, with the session model's thinking, tier and speed.
func (h *Host) selectConfigured() {
	cfg, s := h.Config(), h.Session()
	if cfg.Model != "" {
		if err := s.SelectModel(cfg.Model); err != nil {
			h.note(contrib.Diag(contrib.ModelUnknown, "", contrib.Pos{File: h.configPath(false)}, "config model: %s", message(err)))
		} else {
			for _, set := range []struct {
				key, token string
				set        func(string) error
			}{{"thinking", cfg.Thinking, s.SetThinking}, {"service_tier", cfg.ServiceTier, s.SetServiceTier}, {"speed", cfg.Speed, s.SetSpeed}} {
				if err := set.set(set.token); err != nil {
					h.note(contrib.Diag(contrib.ModelUnknown, "", contrib.Pos{File: h.configPath(false)}, "config %s: %s; using the default", set.key, message(err)))
				}
			}
		}
	}
	if cfg.ReviewModel != "" {
		if err := s.SelectReviewModel(cfg.ReviewModel); err != nil {
			h.note(contrib.Diag(contrib.ModelUnknown, "", contrib.Pos{File: h.configPath(false)}, "config review_model: %s", message(err)))
		}
	}
	if h.models.review.Load() == nil && h.models.session.Load() != nil {
		s.SetReview(ReviewFacts{})
	}
}
