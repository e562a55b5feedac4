package starhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/models"
)

// ProvidersFile is the name of the model providers file in the home
// directory: {home}/providers.json. It is the name internal/layout
// keeps the file under (a test holds the two equal).
const ProvidersFile = "providers.json"

// ModelAdapter builds clients for one protocol: register one for a new
// protocol of the embedder's own, or to replace a built-in one, with
// Options.Adapters. Implementations must be safe for concurrent use.
type ModelAdapter interface {
	// Protocol is the lowercase token providers.json names in "protocol"
	// (CC8: a letter, then letters, digits, '_' or '-').
	Protocol() string
	// NewClient builds a fresh client; it sends nothing. It fails with an
	// error wrapping ErrNotSupported when it cannot honour a non-empty
	// slot of cfg.Facts (service tier, speed): the host surfaces that when
	// it connects (CC9).
	NewClient(ctx context.Context, cfg AdapterConfig) (ModelClient, error)
}

// AdapterConfig is what a ModelAdapter builds a client from: the selected
// model of a providers.json provider.
type AdapterConfig struct {
	// Facts are the model's facts as selected: provider, model, limits,
	// sampling, service tier and speed (thinking is sent per request:
	// ModelRequest.Thinking).
	Facts ModelFacts
	// Endpoint is the provider's base URL.
	Endpoint string
	// Organization and Project are the provider's account settings, ""
	// when unset.
	Organization string
	Project      string
	// APIKey is the provider's key ("" when none is configured). Send it
	// only in the provider's own authentication header.
	APIKey string
	// Timeout bounds one call, retries included (Options.ModelTimeout;
	// DefaultModelTimeout when zero). Send with
	// modelhttp.Client(Timeout) (starhost/models/modelhttp) for the
	// host's bounded retry of a 429 after its retry-after; starhost itself
	// links no net/http.
	Timeout time.Duration
	// Images is true for the images client (RoleImages): only it accepts
	// ModelRequest.Images.
	Images bool
}

// ModelError is a failed model call with a stable code, as a ModelClient
// returns it: plugins see Code as error(code, message). errors.Is(err,
// code) holds for its Code.
type ModelError struct {
	// Code is the stable code: unauthorized, model_not_found,
	// rate_limited, bad_request, provider_error, timeout, cancelled,
	// unreachable, bad_reply or refused (docs/models.md).
	Code Code
	// Provider and Model name the model called.
	Provider string
	Model    string
	// Status is the HTTP status, 0 when there was none.
	Status int
	// Detail is the provider's own one-line detail, "" when none.
	Detail string
	// Err is the cause (a network error, context.Canceled), or nil.
	Err error
}

// Error returns one line: "CODE: PROVIDER/MODEL (detail)".
func (e *ModelError) Error() string {
	s := fmt.Sprintf("%s: %s/%s", e.Code, e.Provider, e.Model)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Unwrap returns the code and the cause, so errors.Is finds either.
func (e *ModelError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Code}
	}
	return []error{e.Code, e.Err}
}

// ErrorCode returns the stable code as a string: the host gives it to the
// plugin that made the call.
func (e *ModelError) ErrorCode() string { return string(e.Code) }

// loadProviders reads {home}/providers.json. A file that cannot be used
// is a ProvidersInvalid note at its line and column and keeps the
// providers in use (none at start); an api_key_env naming an unset
// variable is a ProviderKeyUnset warning, a built-in protocol whose
// adapter the program does not link a ProviderAdapterMissing error. It reports whether the file
// changed since the last read that was used.
func (h *Host) loadProviders(reload bool) bool {
	path := h.paths().Providers()
	data, err := os.ReadFile(path)
	var ps *models.Providers
	switch {
	case errors.Is(err, fs.ErrNotExist):
		ps, err, data = &models.Providers{}, nil, nil
	case err != nil:
		err = &models.ProvidersError{Path: path, Msg: err.Error()}
	default:
		ps, err = models.ParseProviders(path, data)
	}
	if err != nil {
		h.noteProvidersInvalid(path, err, reload)
		if h.models.providers.Load() == nil {
			h.models.providers.Store(&models.Providers{})
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
	for _, u := range ps.Unlinked(h.models.adapters) {
		h.note(contrib.Diag(contrib.ProviderAdapterMissing, "", contrib.Pos{File: path, Line: u.Line, Col: u.Col},
			"provider %s: protocol %q has no adapter in this program; its models cannot be called", u.Provider, u.Protocol).
			WithRemedy("import _ %q in the program that embeds starhost", u.Package))
	}
	return true
}

// providersEvent tells Options.Events that providers.json was reloaded
// (providers-reloaded) or that a bad edit was kept out (providers-kept).
func (h *Host) providersEvent(kind EventKind, start time.Time) {
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
	var pe *models.ProvidersError
	if errors.As(err, &pe) {
		d.Pos.Line, d.Pos.Col = pe.Line, pe.Col
		d.Message = pe.Msg + "; " + outcome
	}
	h.note(d.WithRemedy("fix %s", filepath.Base(path)))
	if reload {
		h.providersEvent(EventProvidersKept, time.Now())
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
	defer h.providersEvent(EventProvidersReloaded, start)
	h.eachSession(func(s *Session) { h.reselect(ctx, s) })
}

// reselect looks the models of s up again in the reloaded providers.json.
// Only the host's defaults report what is no longer usable: a session
// hears it from Connect.
func (h *Host) reselect(ctx context.Context, s *Session) {
	h.models.mu.Lock()
	sessionKey, reviewKey := s.sessionKey, s.reviewKey
	h.models.mu.Unlock()
	switch {
	case sessionKey != "":
		if err := s.SelectModel(sessionKey); err != nil && s == h.base {
			h.note(contrib.Diag(contrib.ModelUnknown, "", contrib.Pos{File: h.paths().Providers()},
				"the session model is no longer usable: %v", err))
		}
	case s == h.base && s.model.Load() == nil:
		h.selectConfigured() // providers.json was missing or invalid at start
	}
	if reviewKey != "" {
		if err := s.SelectReviewModel(reviewKey); err != nil && s == h.base {
			h.note(contrib.Diag(contrib.ModelUnknown, "", contrib.Pos{File: h.paths().Providers()},
				"the review model is no longer usable: %v", err))
		}
	}
	s.sessionEpoch.Store(newEpoch())
	s.reviewEpoch.Store(newEpoch())
	if s == h.base {
		s.reconnect(ctx)
	}
}
