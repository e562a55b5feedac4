package starhost

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/models"
)

// ProvidersFile is the name of the model providers file in the home
// directory: {home}/providers.json.
const ProvidersFile = models.ProvidersFile

// Providers, Provider, ProviderModel and ProvidersError are providers.json
// as package models reads it (kept here so embedders need one import).
type (
	Providers      = models.Providers
	Provider       = models.Provider
	ProviderModel  = models.ProviderModel
	ProvidersError = models.ProvidersError
)

// ModelAdapter builds clients for one protocol (models.Adapter): register
// one for a new protocol with Options.Adapters.
type ModelAdapter = models.Adapter

// ModelError is a failed model call with a stable code (models.Error).
type ModelError = models.Error

// LoadProviders reads and validates a providers file; see
// models.LoadProviders.
func LoadProviders(path string) (*Providers, error) { return models.LoadProviders(path) }

// ParseProviders decodes providers.json strictly; see
// models.ParseProviders.
func ParseProviders(path string, data []byte) (*Providers, error) {
	return models.ParseProviders(path, data)
}

// loadProviders reads {home}/providers.json. A file that cannot be used
// is a ProvidersInvalid note at its line and column and keeps the
// providers in use (none at start); an api_key_env naming an unset
// variable is a ProviderKeyUnset warning. It reports whether the file
// changed since the last read that was used.
func (h *Host) loadProviders(reload bool) bool {
	path := filepath.Join(h.opts.Home, ProvidersFile)
	data, err := os.ReadFile(path)
	var ps *Providers
	switch {
	case errors.Is(err, fs.ErrNotExist):
		ps, err, data = &Providers{}, nil, nil
	case err != nil:
		err = &ProvidersError{Path: path, Msg: err.Error()}
	default:
		ps, err = ParseProviders(path, data)
	}
	if err != nil {
		h.noteProvidersInvalid(path, err, reload)
		if h.models.providers.Load() == nil {
			h.models.providers.Store(&Providers{})
		}
		return false
	}
	h.models.mu.Lock()
	same := reload && bytes.Equal(h.models.providersData, data)
	h.models.providersData = data
	h.models.mu.Unlock()
	if same {
		return false
	}
	h.models.providers.Store(ps)
	keys := ps.Keys()
	h.models.secrets.Store(&keys)
	for _, u := range ps.UnsetKeys() {
		h.note(contrib.Diag(contrib.ProviderKeyUnset, "", contrib.Pos{File: path, Line: u.Line, Col: u.Col},
			"provider %s: api_key_env names %s, which is not set; its model calls go out without an API key", u.Provider, u.Env).
			WithRemedy("export %s, or remove api_key_env for a provider that needs no key", u.Env))
	}
	return true
}

// providersEvent tells Options.Events that providers.json was reloaded
// (providers-reloaded) or that a bad edit was kept out (providers-kept).
func (h *Host) providersEvent(kind string, start time.Time) {
	if h.opts.Events != nil {
		h.opts.Events(Event{Kind: kind, Elapsed: time.Since(start)})
	}
}

func (h *Host) noteProvidersInvalid(path string, err error, reload bool) {
	outcome := "no model provider is available"
	if reload {
		outcome = "the previous providers stay in use"
	}
	d := contrib.Diag(contrib.ProvidersInvalid, "", contrib.Pos{File: path}, "%v; %s", err, outcome)
	var pe *ProvidersError
	if errors.As(err, &pe) {
		d.Pos.Line, d.Pos.Col = pe.Line, pe.Col
		d.Message = pe.Msg + "; " + outcome
	}
	h.note(d.WithRemedy("fix %s", filepath.Base(path)))
	if reload {
		h.providersEvent("providers-kept", time.Now())
	}
}

// reloadProviders reads providers.json again after it changed (Watch): the
// selected session and review models are looked up anew (their facts,
// endpoint or key may have changed), so plugins' clients are rebuilt on
// their next read (CC27). A bad edit keeps the previous providers.
func (h *Host) reloadProviders(ctx context.Context) {
	start := time.Now()
	if !h.loadProviders(true) {
		return
	}
	defer h.providersEvent("providers-reloaded", start)
	h.models.mu.Lock()
	sessionKey, reviewKey := h.models.sessionKey, h.models.reviewKey
	h.models.mu.Unlock()
	switch {
	case sessionKey != "":
		if err := h.SelectModel(sessionKey); err != nil {
			h.note(contrib.Diag(contrib.ModelUnknown, "", contrib.Pos{File: filepath.Join(h.opts.Home, ProvidersFile)},
				"the session model is no longer usable: %v", err))
		}
	case h.models.session.Load() == nil:
		h.selectConfigured() // providers.json was missing or invalid at start
	}
	if reviewKey != "" {
		if err := h.SelectReviewModel(reviewKey); err != nil {
			h.note(contrib.Diag(contrib.ModelUnknown, "", contrib.Pos{File: filepath.Join(h.opts.Home, ProvidersFile)},
				"the review model is no longer usable: %v", err))
		}
	}
	h.models.sessionEpoch.Add(1)
	h.models.reviewEpoch.Add(1)
	h.reconnect(ctx)
}
