package models

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

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
// implement it, each in its own package that registers it when imported
// (Register); an embedder adds its own for a new protocol (or to replace
// a built-in one) with Adapters.Register. Implementations must be safe for
// concurrent use.
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
	// Timeout bounds one call, retries included (DefaultTimeout when
	// <= 0): send with modelhttp.Client(Timeout), which also honours
	// retry-after on 429 with a bounded retry.
	Timeout time.Duration
	// Images is true for the images client (CC26): only it accepts
	// Request.Images.
	Images bool
}

// Adapters is a set of adapters by protocol. The zero value is empty; use
// Registered for the adapters the program linked. Safe for concurrent use.
type Adapters struct {
	mu sync.RWMutex
	m  map[string]Adapter
}

// registry holds the adapters registered by the packages the program
// imports, as database/sql holds its drivers.
var registry Adapters

// Register makes ad available to every host of the program: the adapter
// packages (starhost/models/openai, anthropic, …) call it from init, so a
// program links only the protocols it imports. It panics when the
// protocol is not a valid token (CC8) or is registered twice.
func Register(ad Adapter) {
	proto := strings.ToLower(ad.Protocol())
	if _, dup := registry.Lookup(proto); dup {
		panic("models: Register called twice for protocol " + proto)
	}
	if err := registry.Register(ad); err != nil {
		panic("models: " + err.Error())
	}
}

// Registered returns a new set holding the adapters registered so far
// (Register): the built-in ones whose packages the program imports.
func Registered() *Adapters {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	a := &Adapters{m: make(map[string]Adapter, len(registry.m))}
	for p, ad := range registry.m {
		a.m[p] = ad
	}
	return a
}

// adapterRoot is where the built-in adapter packages live.
const adapterRoot = "github.com/crystal-star/crystal-star/starhost/models/"

// Package returns the import path of the package that registers the
// built-in adapter of protocol ("github.com/crystal-star/crystal-star/
// starhost/models/anthropic"); ok is false for a protocol with no
// built-in adapter.
func Package(protocol string) (path string, ok bool) {
	p := strings.ToLower(protocol)
	if !contrib.IsReservedProtocol(p) {
		return "", false
	}
	return adapterRoot + p, true
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
