package models

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// Role names a model client: session, images or review (CC26).
type Role = contrib.ModelRole

// Message, Request, Reply and Client are the model-call types: defined in
// contrib so the Starlark side can use them, owned here for Go code.
type (
	Message = contrib.Message
	Request = contrib.ModelRequest
	Reply   = contrib.ModelReply
	Client  = contrib.ModelClient
)

// Facts are one model's facts as plugins see them (CC21).
type Facts = builtins.ModelFacts

// The host's thinking sentinels (CC21). Every other thinking value is one
// of the model's listed effort tokens.
const (
	ThinkingDefault = "default"
	ThinkingOff     = "off"
)

// Adapter builds clients for one protocol. The six built-in adapters
// implement it; an embedder registers its own for a new protocol (or to
// replace a built-in one) with Adapters.Register. Implementations must be
// safe for concurrent use.
type Adapter interface {
	// Protocol is the lowercase token providers.json names in "protocol".
	Protocol() string
	// NewClient builds a fresh client. It fails with an error wrapping
	// contrib.ErrNotSupported when it cannot honour a non-empty slot of
	// cfg.Facts (service tier, speed) — the host surfaces that when it
	// builds the client (CC9). It sends nothing.
	NewClient(ctx context.Context, cfg ClientConfig) (Client, error)
}

// ClientConfig is what an adapter builds a client from.
type ClientConfig struct {
	Provider *Provider
	Model    *ProviderModel
	// Facts carry the sampling, the service tier and the speed of the
	// model as selected (thinking is sent per request: Request.Thinking).
	Facts Facts
	// APIKey is the provider's key ("" when none is configured). Send it
	// only in the provider's own authentication header.
	APIKey string
	// HTTP is the client to send with: bounded by the host's model
	// timeout, honouring retry-after on 429 with a bounded retry.
	HTTP *http.Client
	// Images is true for the images client (CC26): only it accepts
	// Request.Images.
	Images bool
}

// Adapters is a set of adapters by protocol. The zero value is empty; use
// Builtin for the six built-in ones. Safe for concurrent use.
type Adapters struct {
	mu sync.RWMutex
	m  map[string]Adapter
}

// Builtin returns a set holding the six built-in adapters.
func Builtin() *Adapters {
	a := &Adapters{}
	for _, ad := range []Adapter{OpenAI{}, Responses{}, DeepSeek{}, Anthropic{}, Gemini{}, Ollama{}} {
		_ = a.Register(ad)
	}
	return a
}

// Register adds ad, replacing any adapter of the same protocol. The
// protocol token follows CC8 (a letter, then letters, digits, '_' or '-').
func (a *Adapters) Register(ad Adapter) error {
	proto := strings.ToLower(ad.Protocol())
	if err := contrib.CheckProtocol(proto); err != nil {
		return fmt.Errorf("adapter protocol %q %w", proto, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[string]Adapter{}
	}
	a.m[proto] = ad
	return nil
}

// Lookup returns the adapter of protocol (case-insensitive).
func (a *Adapters) Lookup(protocol string) (Adapter, bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	ad, ok := a.m[strings.ToLower(protocol)]
	return ad, ok
}

// Protocols lists the registered protocols, sorted.
func (a *Adapters) Protocols() []string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	out := make([]string, 0, len(a.m))
	for p := range a.m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Split separates a request's system text (its system messages, joined by
// a blank line) from the conversation; protocols with a separate system
// slot (responses, anthropic, gemini) use it.
func Split(req Request) (system string, conversation []Message) {
	var sys []string
	for _, m := range req.Messages {
		if m.Role == "system" {
			sys = append(sys, m.Content)
		} else {
			conversation = append(conversation, m)
		}
	}
	return strings.Join(sys, "\n\n"), conversation
}

// sendsThinking reports whether a thinking token asks for a specific
// effort (not the host's sentinels).
func sendsThinking(t string) bool {
	return t != "" && t != ThinkingDefault && t != ThinkingOff
}
