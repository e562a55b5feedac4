// Selecting providers.json models for the session and review, and their
// per-model thinking, service tier and speed.

package starhost

import (
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/starhost/models"
)

// factsFor builds the facts of a providers.json model with its saved
// settings.
func factsFor(p *models.Provider, m *models.ProviderModel, s modelSettings) ModelFacts {
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
func (h *Host) lookup(spec string) (*models.Provider, *models.ProviderModel, error) {
	p, m, ok := h.providers().Lookup(strings.TrimSpace(spec))
	if !ok {
		var known []string
		for _, p := range h.providers().Providers {
			for _, m := range p.Models {
				known = append(known, p.Name+"/"+m.Name)
			}
		}
		if len(known) == 0 {
			return nil, nil, codeErrorf(ErrUnknownModel, "model %q is not listed: %s lists no models", spec, ProvidersFile)
		}
		return nil, nil, codeErrorf(ErrUnknownModel, "model %q is not listed in %s; choose one of: %s", spec, ProvidersFile, strings.Join(known, ", "))
	}
	return p, m, nil
}

// SelectModel makes "provider/model" of providers.json the session model
// (/model): the session client is rebuilt, and the model's saved thinking,
// tier and speed apply. Plugins see it on their next read. A model
// providers.json does not list is ErrUnknownModel.
func (s *Session) SelectModel(spec string) error {
	f, err := s.h.selectKey(spec, &s.sessionKey)
	if err == nil {
		s.SetModel(f)
	}
	return err
}

// SelectReviewModel makes "provider/model" the independent review model
// (/approval model); "", "off" or "session" switches independence off:
// review then uses the session model. A model providers.json does not list
// is ErrUnknownModel.
func (s *Session) SelectReviewModel(spec string) error {
	h := s.h
	switch strings.TrimSpace(spec) {
	case "", ThinkingOff, "session":
		h.models.mu.Lock()
		s.reviewKey = ""
		h.models.mu.Unlock()
		s.SetReview(ReviewFacts{})
		return nil
	}
	f, err := h.selectKey(spec, &s.reviewKey)
	if err == nil {
		s.SetReview(ReviewFacts{Independent: true, Model: f})
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
// tokens, CC21). Without a model from providers.json it is ErrNoModel; a
// token the model does not list is ErrNotOffered.
func (s *Session) SetThinking(token string) error { return s.change(false, settingThinking, token) }

// SetServiceTier sets the session model's service tier (/tier); "" unsets
// it. A listed "default" tier is a tier token, not the thinking sentinel.
// The session client is rebuilt, so a factory's not_supported shows now.
// Its errors are SetThinking's.
func (s *Session) SetServiceTier(token string) error { return s.change(false, settingTier, token) }

// SetSpeed sets the session model's speed (/speed); "" unsets it. Its
// errors are SetThinking's.
func (s *Session) SetSpeed(token string) error { return s.change(false, settingSpeed, token) }

// SetReviewThinking sets the independent review model's stored effort
// (/approval thinking). Without an independent review model it is
// ErrNoModel; a token the model does not list is ErrNotOffered.
func (s *Session) SetReviewThinking(token string) error {
	return s.change(true, settingThinking, token)
}

// change validates a token against the model's list, saves it for that
// model and republishes the facts.
func (s *Session) change(review bool, what setting, token string) error {
	h := s.h
	h.models.mu.Lock()
	key := s.sessionKey
	if review {
		key = s.reviewKey
	}
	h.models.mu.Unlock()
	if key == "" {
		if review {
			return codeErrorf(ErrNoModel, "review is not independent; select a review model first")
		}
		return codeErrorf(ErrNoModel, "no model from %s is selected; select one first", ProvidersFile)
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
	set := h.models.saved[key]
	switch what {
	case settingThinking:
		set.thinking = tok
	case settingTier:
		set.tier = tok
	case settingSpeed:
		set.speed = tok
	}
	h.models.saved[key] = set
	sessionKey, reviewKey := s.sessionKey, s.reviewKey
	h.models.mu.Unlock()
	f := factsFor(p, m, set)
	// The same model may serve both roles: both views follow its settings.
	if key == sessionKey {
		s.SetModel(f)
	}
	if key == reviewKey {
		s.SetReview(ReviewFacts{Independent: true, Model: f})
	}
	return nil
}

func checkSetting(key string, m *models.ProviderModel, what setting, tok string) error {
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
		return codeErrorf(ErrNotOffered, "%s %q is not offered by %s, which lists no %s tokens", name, tok, key, name)
	}
	return codeErrorf(ErrNotOffered, "%s %q is not offered by %s; choose one of: %s", name, tok, key, choices)
}
