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

// sessionState is the host-wide model plumbing behind every session:
// providers.json, the adapters, the saved per-model settings and the
// client factories' owners. Each Session has its own facts, model views
// and epochs (Session). Reads are lock-free; writers hold mu.
type sessionState struct {
	providers     atomic.Pointer[models.Providers]
	adapters      *models.Adapters // registered (linked) and Options.Adapters, by protocol
	providersData []byte           // providers.json as last used (guarded by mu)
	started       atomic.Bool
	closing       atomic.Bool
	secrets       atomic.Pointer[[]string] // API keys to redact

	// mu guards saved, factoryOwner and every Session's sessionKey and
	// reviewKey.
	mu           sync.Mutex
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

// Facts returns the session's facts as callbacks serving it see them.
func (s *Session) Facts() Facts { return *s.facts.Load() }

// SetFacts publishes new facts for this session; callbacks serving it see
// them on their next call, other sessions never. An empty Workspace keeps
// the host's workspace.
func (s *Session) SetFacts(f Facts) {
	if f.Workspace == "" {
		f.Workspace = s.h.opts.Workspace
	}
	s.facts.Store(&f)
}

// Model returns the session model's facts as published, or nil before the
// session model is published (CC20, CC23).
func (s *Session) Model() *ModelFacts {
	if f := s.model.Load(); f != nil {
		c := *f
		return &c
	}
	return nil
}

// Review returns the review facts as published, or nil before the session
// model is published.
func (s *Session) Review() *ReviewFacts {
	if r := s.review.Load(); r != nil {
		c := *r
		return &c
	}
	return nil
}

// SetModel publishes the session model's facts (CC20) for this session.
// Plugins serving it see them on their next read of ctx.session;
// attach_session is not called again. Facts().Provider and Model
// (ctx.provider, ctx.model) follow them. Thinking is stored lowercase (""
// means default); ServiceTier and Speed "" mean unset. When the provider,
// model, protocol, input kinds, tier or speed change, the session client
// counts as rebuilt: plugins' session and images clients of this session
// are discarded (CC27).
func (s *Session) SetModel(f ModelFacts) {
	normalize(&f)
	for { // ctx.provider and ctx.model follow the session (CC13)
		cur := s.facts.Load()
		next := *cur
		next.Provider, next.Model = f.Provider, f.Model
		if s.facts.CompareAndSwap(cur, &next) {
			break
		}
	}
	old := s.model.Swap(&f)
	if old == nil || clientKey(*old) != clientKey(f) {
		s.sessionEpoch.Store(newEpoch())
		s.reconnect(context.Background())
	}
}

// SetReview publishes the review facts (CC22). When Independent is false,
// review uses the session model and Model is cleared: plugins see no review
// model. Switching independence off, or changing the review model's client
// settings, discards plugins' review clients of this session (CC27).
func (s *Session) SetReview(r ReviewFacts) {
	if r.Independent {
		normalize(&r.Model)
	} else {
		r.Model = ModelFacts{}
	}
	old := s.review.Swap(&r)
	if old == nil || old.Independent != r.Independent || clientKey(old.Model) != clientKey(r.Model) {
		s.reviewEpoch.Store(newEpoch())
		s.reconnect(context.Background())
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

// startSession reads providers.json and publishes, as the host's defaults,
// the session and review models selected by config.toml (model, review_model, thinking, service_tier,
// speed), before any plugin attaches, unless the embedder already
// published a session model with SetModel. Problems are notes.
func (h *Host) startSession() {
	h.loadProviders(false)
	if h.base.model.Load() != nil {
		return // the embedder published its own model before Start
	}
	h.selectConfigured()
}

// selectConfigured selects the models config.toml names, with the session
// model's thinking, tier and speed, as the host's defaults (new sessions
// start from them).
func (h *Host) selectConfigured() {
	cfg, s := h.Config(), h.base
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
	if s.review.Load() == nil && s.model.Load() != nil {
		s.SetReview(ReviewFacts{})
	}
}
