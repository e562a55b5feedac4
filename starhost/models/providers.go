package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/layout"
)

// ProvidersFile is the name of the model providers file in the home
// directory: {home}/providers.json.
const ProvidersFile = layout.ProvidersFile

// Providers is the decoded providers.json: the model providers the
// operator configured. config.toml selects one of their models as
// `model = "provider/model"` (and `review_model`).
type Providers struct {
	Providers []Provider `json:"providers"`
}

// Provider is one model provider. Protocol names the adapter: openai,
// responses, deepseek, anthropic, gemini and ollama are built in (CC8); an
// embedder may register adapters for more (Adapters.Register); any other
// token is served by a plugin's client factory.
// The API key is read from the environment variable APIKeyEnv when a client
// is built; it is never shown, logged or given to plugin code.
type Provider struct {
	Name         string          `json:"name"`
	Protocol     string          `json:"protocol"`
	Endpoint     string          `json:"endpoint"`
	APIKeyEnv    string          `json:"api_key_env,omitempty"`
	Organization string          `json:"organization,omitempty"`
	Project      string          `json:"project,omitempty"`
	Models       []ProviderModel `json:"models"`

	keyLine, keyCol     int // where api_key_env's value is, for UnsetKeys
	protoLine, protoCol int // where protocol's value is, for Unlinked
}

// ProviderModel is one model of a provider with its facts (CC21). Thinking,
// ServiceTiers and Speeds list the tokens the model accepts; they are
// stored lowercase.
type ProviderModel struct {
	Name          string   `json:"name"`
	ContextWindow int      `json:"context_window,omitempty"`
	MaxTokens     int      `json:"max_tokens,omitempty"`
	Temperature   *float64 `json:"temperature,omitempty"`
	TopP          *float64 `json:"top_p,omitempty"`
	ImageInput    bool     `json:"image_input,omitempty"`
	AudioInput    bool     `json:"audio_input,omitempty"`
	VideoInput    bool     `json:"video_input,omitempty"`
	Thinking      []string `json:"thinking,omitempty"`
	ServiceTiers  []string `json:"service_tiers,omitempty"`
	Speeds        []string `json:"speeds,omitempty"`
}

// Lookup returns the provider and model named by "provider/model" (the
// model part may itself contain "/").
func (ps *Providers) Lookup(spec string) (*Provider, *ProviderModel, bool) {
	if ps == nil {
		return nil, nil, false
	}
	prov, model, ok := strings.Cut(spec, "/")
	if !ok {
		return nil, nil, false
	}
	for i := range ps.Providers {
		p := &ps.Providers[i]
		if p.Name != prov {
			continue
		}
		for j := range p.Models {
			if p.Models[j].Name == model {
				return p, &p.Models[j], true
			}
		}
	}
	return nil, nil, false
}

// ProvidersError is a providers.json that cannot be used: its path, the
// line and column (1-based; 0 when unknown) and what is wrong.
type ProvidersError struct {
	Path      string
	Line, Col int
	Msg       string
}

func (e *ProvidersError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// ParseProviders decodes providers.json strictly (unknown keys are errors)
// and checks its rules; errors carry the JSON line and column.
func ParseProviders(path string, data []byte) (*Providers, error) {
	fail := func(off int64, format string, args ...any) error {
		line, col := lineCol(data, off)
		return &ProvidersError{Path: path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	var ps Providers
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ps); err != nil {
		return nil, decodeError(data, err, fail)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fail(dec.InputOffset(), "unexpected data after the top-level object")
	}
	at := walkJSON(data)
	for i := range ps.Providers {
		ps.Providers[i].keyLine, ps.Providers[i].keyCol = lineCol(data, at.offset(fmt.Sprintf("providers[%d].api_key_env", i)))
		ps.Providers[i].protoLine, ps.Providers[i].protoCol = lineCol(data, at.offset(fmt.Sprintf("providers[%d].protocol", i)))
	}
	return &ps, ps.validate(func(p string, format string, args ...any) error { return fail(at.offset(p), format, args...) })
}

var (
	providerNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]{0,63}$`)
	envNameRE      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	settingRE      = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
)

// validate checks the rules of the file; fail reports a problem at a JSON
// path such as providers[0].models[1].name.
func (ps *Providers) validate(fail func(path, format string, args ...any) error) error {
	names := map[string]bool{}
	for i := range ps.Providers {
		p := &ps.Providers[i]
		at := fmt.Sprintf("providers[%d]", i)
		switch {
		case !providerNameRE.MatchString(p.Name):
			return fail(at+".name", "provider name %q must be a letter, then letters, digits, '.', '_' or '-' (at most 64)", p.Name)
		case names[p.Name]:
			return fail(at+".name", "provider %q is listed twice", p.Name)
		case contrib.CheckProtocol(p.Protocol) != nil:
			return fail(at+".protocol", "protocol %q %v", p.Protocol, contrib.CheckProtocol(p.Protocol))
		case p.APIKeyEnv != "" && !envNameRE.MatchString(p.APIKeyEnv):
			return fail(at+".api_key_env", "api_key_env %q is not an environment variable name", p.APIKeyEnv)
		}
		names[p.Name] = true
		if u, err := url.Parse(p.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return fail(at+".endpoint", "endpoint %q must be an http:// or https:// URL without credentials", p.Endpoint)
		}
		if len(p.Models) == 0 {
			return fail(at, "provider %q lists no models", p.Name)
		}
		models := map[string]bool{}
		for j := range p.Models {
			if err := p.Models[j].validate(fmt.Sprintf("%s.models[%d]", at, j), models, fail); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *ProviderModel) validate(at string, seen map[string]bool, fail func(path, format string, args ...any) error) error {
	switch {
	case m.Name == "" || strings.TrimSpace(m.Name) != m.Name:
		return fail(at+".name", "model name %q must be non-empty, without surrounding spaces", m.Name)
	case seen[m.Name]:
		return fail(at+".name", "model %q is listed twice", m.Name)
	case m.ContextWindow < 0:
		return fail(at+".context_window", "context_window must not be negative")
	case m.MaxTokens < 0:
		return fail(at+".max_tokens", "max_tokens must not be negative")
	}
	seen[m.Name] = true
	for _, list := range []struct {
		key    string
		tokens *[]string
	}{{"thinking", &m.Thinking}, {"service_tiers", &m.ServiceTiers}, {"speeds", &m.Speeds}} {
		lowered := make([]string, len(*list.tokens))
		for k, t := range *list.tokens {
			tok := strings.ToLower(t)
			where := fmt.Sprintf("%s.%s[%d]", at, list.key, k)
			switch {
			case !settingRE.MatchString(tok):
				return fail(where, "%s token %q must be lowercase letters, digits, '.', '_' or '-'", list.key, t)
			case list.key == "thinking" && (tok == ThinkingDefault || tok == ThinkingOff):
				return fail(where, "thinking token %q is a host sentinel; list only the model's effort tokens", t)
			case slices.Contains(lowered[:k], tok):
				return fail(where, "%s token %q is listed twice", list.key, t)
			}
			lowered[k] = tok
		}
		*list.tokens = lowered
	}
	return nil
}

// APIKey reads the provider's API key from its environment variable; "" when
// none is configured or the variable is unset. Callers must never log, print
// or hand the key to plugin code (CC9).
func (p *Provider) APIKey() string {
	if p.APIKeyEnv == "" {
		return ""
	}
	return os.Getenv(p.APIKeyEnv)
}

// UnsetKeys lists, in file order, the providers whose api_key_env names an
// environment variable that is not set: their calls would go out without a
// key. Each entry is "provider: VARIABLE" with the variable's position.
func (ps *Providers) UnsetKeys() []UnsetKey {
	var out []UnsetKey
	for i := range ps.Providers {
		p := &ps.Providers[i]
		if p.APIKeyEnv == "" {
			continue
		}
		if _, ok := os.LookupEnv(p.APIKeyEnv); !ok {
			out = append(out, UnsetKey{Provider: p.Name, Env: p.APIKeyEnv, Line: p.keyLine, Col: p.keyCol})
		}
	}
	return out
}

// UnsetKey is a provider whose api_key_env variable is not set, with the
// 1-based line and column of its api_key_env value (0 when unknown).
type UnsetKey struct {
	Provider, Env string
	Line, Col     int
}

// Unlinked lists, in file order, the providers whose protocol is a
// built-in one (CC8) that adapters lacks: the program did not import the
// adapter's package, so their models cannot be called. Each entry carries
// the package to import and the position of the protocol value.
func (ps *Providers) Unlinked(adapters *Adapters) []Unlinked {
	var out []Unlinked
	for i := range ps.Providers {
		p := &ps.Providers[i]
		if _, ok := adapters.Lookup(p.Protocol); ok {
			continue
		}
		if pkg, ok := Package(p.Protocol); ok {
			out = append(out, Unlinked{Provider: p.Name, Protocol: strings.ToLower(p.Protocol), Package: pkg, Line: p.protoLine, Col: p.protoCol})
		}
	}
	return out
}

// Unlinked is a provider whose built-in protocol has no adapter in the
// program: Package is the import that registers it; Line and Col (1-based,
// 0 when unknown) are where the protocol is named.
type Unlinked struct {
	Provider, Protocol, Package string
	Line, Col                   int
}

// Keys returns the API keys of every provider that has one set, for
// redaction: the host removes them from every text it shows. Keys shorter
// than 4 bytes are left out (redacting them would mangle ordinary text).
func (ps *Providers) Keys() []string {
	var keys []string
	for i := range ps.Providers {
		if k := ps.Providers[i].APIKey(); len(k) >= 4 {
			keys = append(keys, k)
		}
	}
	return keys
}
