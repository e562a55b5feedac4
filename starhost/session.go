package starhost

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/models"
)

// ModelFacts are one model's facts as plugins see them on ctx.session and
// ctx.review (CC21): tokens, never API keys, endpoints, organisation or
// project.
type ModelFacts = builtins.ModelFacts

// ReviewFacts are the review model's facts (CC22).
type ReviewFacts = builtins.ReviewFacts

// The host's thinking sentinels (CC21). Every other thinking value is one
// of the model's listed effort tokens.
const (
	ThinkingDefault = models.ThinkingDefault
	ThinkingOff     = models.ThinkingOff
)

// sessionState is the live session the host publishes to plugins, and the
// per-model settings behind it when the host manages models itself
// (providers.json). Reads are lock-free; writers hold mu.
type sessionState struct {
	session atomic.Pointer[ModelFacts]
	review  atomic.Pointer[ReviewFacts]
	// Epochs identify the current build of the session and review clients;
	// plugins' cached clients of an older epoch are discarded (CC27).
	sessionEpoch, reviewEpoch atomic.Uint64
	providers                 atomic.Pointer[Providers]
	adapters                  *models.Adapters // built-in and Options.Adapters, by protocol
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

// initAdapters registers the built-in adapters and the embedder's.
func (h *Host) initAdapters() error {
	h.models.adapters = models.Builtin()
	for _, ad := range h.opts.Adapters {
		if err := h.models.adapters.Register(ad); err != nil {
			return err
		}
	}
	return nil
}

// modelSettings are the tokens saved for one model (CC22: the review model's
// thinking, tier and speed are the ones saved for that model).
type modelSettings struct{ thinking, tier, speed string }

// Session returns the session model's facts as published, or nil before
// the session is published (CC20, CC23). It implements
// builtins.SessionSource.
func (h *Host) Session() *ModelFacts {
	if f := h.models.session.Load(); f != nil {
		c := *f
		return &c
	}
	return nil
}

// Review returns the review facts as published, or nil before the session
// is published.
func (h *Host) Review() *ReviewFacts {
	if r := h.models.review.Load(); r != nil {
		c := *r
		return &c
	}
	return nil
}

// SetSession publishes the session model's facts (CC20). Plugins see them
// on their next read of ctx.session; attach_session is not called again.
// Facts().Provider and Model (ctx.provider, ctx.model) follow them.
// Thinking is stored lowercase ("" means default); ServiceTier and Speed
// "" mean unset. When the provider, model, protocol, input kinds, tier or
// speed change, the session client counts as rebuilt: plugins' session and
// images clients are discarded (CC27). Safe for concurrent use.
func (h *Host) SetSession(f ModelFacts) {
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
func (h *Host) SetReview(r ReviewFacts) {
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

// Providers returns providers.json as read at Start (empty when absent or
// invalid).
func (h *Host) Providers() *Providers {
	if p := h.models.providers.Load(); p != nil {
		return p
	}
	return &Providers{}
}

// startSession reads providers.json and publishes the session and review
// selected by config.toml (model, review_model, thinking, service_tier,
// speed), before any plugin attaches, unless the embedder already
// published a session with SetSession. Problems are notes.
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
	cfg := h.Config()
	if cfg.Model != "" {
		if err := h.SelectModel(cfg.Model); err != nil {
			h.note(contrib.Diag(contrib.ModelUnknown, "", contrib.Pos{File: h.configPath(false)}, "config model: %v", err))
		} else {
			for _, s := range []struct {
				key, token string
				set        func(string) error
			}{{"thinking", cfg.Thinking, h.SetThinking}, {"service_tier", cfg.ServiceTier, h.SetServiceTier}, {"speed", cfg.Speed, h.SetSpeed}} {
				if err := s.set(s.token); err != nil {
					h.note(contrib.Diag(contrib.ModelUnknown, "", contrib.Pos{File: h.configPath(false)}, "config %s: %v; using the default", s.key, err))
				}
			}
		}
	}
	if cfg.ReviewModel != "" {
		if err := h.SelectReviewModel(cfg.ReviewModel); err != nil {
			h.note(contrib.Diag(contrib.ModelUnknown, "", contrib.Pos{File: h.configPath(false)}, "config review_model: %v", err))
		}
	}
	if h.models.review.Load() == nil && h.models.session.Load() != nil {
		h.SetReview(ReviewFacts{})
	}
}

// factsFor builds the facts of a providers.json model with its saved
// settings.
func factsFor(p *Provider, m *ProviderModel, s modelSettings) ModelFacts {
	thinking := s.thinking
	if thinking == "" {
		thinking = ThinkingDefault
	}
	return ModelFacts{
		Provider: p.Name, Protocol: strings.ToLower(p.Protocol), Model: m.Name,
		ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens, Temperature: m.Temperature, TopP: m.TopP,
		ImageInput: m.ImageInput, AudioInput: m.AudioInput, VideoInput: m.VideoInput,
		Thinking: thinking, ServiceTier: s.tier, Speed: s.speed,
	}
}

// lookup finds "provider/model" in providers.json.
func (h *Host) lookup(spec string) (*Provider, *ProviderModel, error) {
	p, m, ok := h.Providers().Lookup(strings.TrimSpace(spec))
	if !ok {
		var known []string
		for _, p := range h.Providers().Providers {
			for _, m := range p.Models {
				known = append(known, p.Name+"/"+m.Name)
			}
		}
		if len(known) == 0 {
			return nil, nil, fmt.Errorf("model %q is not listed: %s lists no models", spec, ProvidersFile)
		}
		return nil, nil, fmt.Errorf("model %q is not listed in %s; choose one of: %s", spec, ProvidersFile, strings.Join(known, ", "))
	}
	return p, m, nil
}

// SelectModel makes "provider/model" of providers.json the session model
// (/model): the session client is rebuilt, and the model's saved thinking,
// tier and speed apply. Plugins see it on their next read.
func (h *Host) SelectModel(spec string) error {
	f, err := h.selectKey(spec, &h.models.sessionKey)
	if err == nil {
		h.SetSession(f)
	}
	return err
}

// SelectReviewModel makes "provider/model" the independent review model
// (/approval model); "", "off" or "session" switches independence off:
// review then uses the session model.
func (h *Host) SelectReviewModel(spec string) error {
	switch strings.TrimSpace(spec) {
	case "", ThinkingOff, "session":
		h.models.mu.Lock()
		h.models.reviewKey = ""
		h.models.mu.Unlock()
		h.SetReview(ReviewFacts{})
		return nil
	}
	f, err := h.selectKey(spec, &h.models.reviewKey)
	if err == nil {
		h.SetReview(ReviewFacts{Independent: true, Model: f})
	}
	return err
}

// selectKey looks spec up, records it in *key and returns the model's
// facts with its saved settings.
func (h *Host) selectKey(spec string, key *string) (ModelFacts, error) {
	p, m, err := h.lookup(spec)
	if err != nil {
		return ModelFacts{}, err
	}
	h.models.mu.Lock()
	defer h.models.mu.Unlock()
	*key = p.Name + "/" + m.Name
	return factsFor(p, m, h.models.saved[*key]), nil
}

// A setting is one of the per-model tokens: thinking, service tier, speed.
type setting int

const (
	settingThinking setting = iota
	settingTier
	settingSpeed
)

// SetThinking sets the session model's thinking (/thinking): "default",
// "off" or one of the model's listed effort tokens, compared and stored
// lowercase and forwarded unchanged ("max" and "maximum" are different
// tokens, CC21).
func (h *Host) SetThinking(token string) error { return h.change(false, settingThinking, token) }

// SetServiceTier sets the session model's service tier (/tier); "" unsets
// it. A listed "default" tier is a tier token, not the thinking sentinel.
// The session client is rebuilt, so a factory's not_supported shows now.
func (h *Host) SetServiceTier(token string) error { return h.change(false, settingTier, token) }

// SetSpeed sets the session model's speed (/speed); "" unsets it.
func (h *Host) SetSpeed(token string) error { return h.change(false, settingSpeed, token) }

// SetReviewThinking sets the independent review model's stored effort
// (/approval thinking).
func (h *Host) SetReviewThinking(token string) error { return h.change(true, settingThinking, token) }

// change validates a token against the model's list, saves it for that
// model and republishes the facts.
func (h *Host) change(review bool, what setting, token string) error {
	h.models.mu.Lock()
	key := h.models.sessionKey
	if review {
		key = h.models.reviewKey
	}
	h.models.mu.Unlock()
	if key == "" {
		if review {
			return fmt.Errorf("review is not independent; select a review model first (/approval model PROVIDER/MODEL)")
		}
		return fmt.Errorf("no model from %s is selected; select one first (/model PROVIDER/MODEL)", ProvidersFile)
	}
	p, m, err := h.lookup(key)
	if err != nil {
		return err
	}
	tok := strings.ToLower(strings.TrimSpace(token))
	if err := checkSetting(key, m, what, tok); err != nil {
		return err
	}
	h.models.mu.Lock()
	if h.models.saved == nil {
		h.models.saved = map[string]modelSettings{}
	}
	s := h.models.saved[key]
	switch what {
	case settingThinking:
		s.thinking = tok
	case settingTier:
		s.tier = tok
	case settingSpeed:
		s.speed = tok
	}
	h.models.saved[key] = s
	sessionKey, reviewKey := h.models.sessionKey, h.models.reviewKey
	h.models.mu.Unlock()
	f := factsFor(p, m, s)
	// The same model may serve both roles: both views follow its settings.
	if key == sessionKey {
		h.SetSession(f)
	}
	if key == reviewKey {
		h.SetReview(ReviewFacts{Independent: true, Model: f})
	}
	return nil
}

func checkSetting(key string, m *ProviderModel, what setting, tok string) error {
	var name string
	var listed []string
	switch what {
	case settingThinking:
		if tok == "" || tok == ThinkingDefault || tok == ThinkingOff {
			return nil
		}
		name, listed = "thinking", m.Thinking
	case settingTier:
		name, listed = "service tier", m.ServiceTiers
	case settingSpeed:
		name, listed = "speed", m.Speeds
	}
	if tok == "" || slices.Contains(listed, tok) {
		return nil
	}
	choices := strings.Join(listed, ", ")
	if what == settingThinking {
		choices = strings.Join(append([]string{ThinkingDefault, ThinkingOff}, listed...), ", ")
	}
	if choices == "" {
		return fmt.Errorf("%s %q is not offered by %s, which lists no %s tokens", name, tok, key, name)
	}
	return fmt.Errorf("%s %q is not offered by %s; choose one of: %s", name, tok, key, choices)
}
