// Conversions between starhost's model and session types and the internal
// ones of contrib, builtins and starhost/models. starhost's types mirror
// them field for field, so most conversions are Go conversions the
// compiler checks: a field added on one side only fails to build here.

package starhost

import (
	"context"
	"strings"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
	"github.com/crystal-star/crystal-star/starhost/models"
)

// internalFacts is f as builtins and the adapters read it.
func internalFacts(f ModelFacts) builtins.ModelFacts { return builtins.ModelFacts(f) }

// internalReview is r as builtins reads it.
func internalReview(r ReviewFacts) builtins.ReviewFacts {
	return builtins.ReviewFacts{Independent: r.Independent, Model: internalFacts(r.Model)}
}

// internalHostFacts is f as contrib.Services returns it.
func internalHostFacts(f Facts) contrib.Facts { return contrib.Facts(f) }

// publicRequest is a plugin's request as an embedder's client reads it.
func publicRequest(req contrib.ModelRequest) ModelRequest {
	out := ModelRequest{MaxTokens: req.MaxTokens, Thinking: req.Thinking, Images: req.Images}
	out.Messages = sandbox.ConvertAll(req.Messages, func(m contrib.Message) Message { return Message(m) })
	return out
}

// embedderClient runs an embedder's ModelClient (Options.Models or a
// ModelAdapter's) where builtins expects a contrib.ModelClient.
type embedderClient struct{ c ModelClient }

func (e embedderClient) Complete(ctx context.Context, req contrib.ModelRequest) (contrib.ModelReply, error) {
	reply, err := e.c.Complete(ctx, publicRequest(req))
	return contrib.ModelReply(reply), err
}

// internalClient wraps c for builtins; a nil client stays nil.
func internalClient(c ModelClient) contrib.ModelClient {
	if c == nil {
		return nil
	}
	return embedderClient{c: c}
}

// embedderAdapter registers an embedder's ModelAdapter with the host's
// adapter set (package models).
type embedderAdapter struct{ ad ModelAdapter }

// internalAdapter wraps ad for models.Adapters.
func internalAdapter(ad ModelAdapter) models.Adapter { return embedderAdapter{ad: ad} }

func (e embedderAdapter) Protocol() string { return strings.ToLower(e.ad.Protocol()) }

func (e embedderAdapter) NewClient(ctx context.Context, cfg models.ClientConfig) (models.Client, error) {
	c, err := e.ad.NewClient(ctx, adapterConfig(cfg))
	if err != nil {
		return nil, err
	}
	return internalClient(c), nil
}

// adapterConfig is what an embedder's adapter sees of cfg: the model's
// facts and the provider's endpoint and account, never the other providers.
func adapterConfig(cfg models.ClientConfig) AdapterConfig {
	out := AdapterConfig{Facts: ModelFacts(cfg.Facts), APIKey: cfg.APIKey, Timeout: cfg.Timeout, Images: cfg.Images}
	if p := cfg.Provider; p != nil {
		out.Endpoint, out.Organization, out.Project = p.Endpoint, p.Organization, p.Project
	}
	return out
}

// hostClient is one of the host's clients (built-in adapters, Adapters,
// plugins' client factories) as an embedder calls it.
type hostClient struct{ c contrib.ModelClient }

func (h hostClient) Complete(ctx context.Context, req ModelRequest) (ModelReply, error) {
	in := contrib.ModelRequest{MaxTokens: req.MaxTokens, Thinking: req.Thinking, Images: req.Images}
	in.Messages = sandbox.ConvertAll(req.Messages, func(m Message) contrib.Message { return contrib.Message(m) })
	reply, err := h.c.Complete(ctx, in)
	return ModelReply(reply), err
}
