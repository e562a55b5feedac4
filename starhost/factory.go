package starhost

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/models"
)

// factoryClient is a client built by a plugin's client factory (CC8, CC9):
// the factory's Starlark codec encodes and decodes, the host performs the
// HTTP call against the provider's endpoint and inserts the API key where
// the codec asked for it. Each encode and decode runs through the factory
// generation's gate; once that generation is revoked the client fails.
type factoryClient struct {
	h                  *Host
	plugin, generation string
	protocol           string
	provider, model    string
	endpoint           *url.URL
	key                string
	codec              contrib.Codec
}

// factoryClient builds a client with the factory that owns p's protocol:
// the multimodal create when the model takes image input and the factory
// has one. A factory's not_supported comes back as an error wrapping
// contrib.ErrNotSupported.
func (h *Host) factoryClient(ctx context.Context, p *models.Provider, m *models.ProviderModel, f ModelFacts, key string) (contrib.ModelClient, error) {
	proto := strings.ToLower(p.Protocol)
	view := h.registry.View()
	fac, owner, conflicts := view.ClientFactoryFor(proto)
	h.noteFactoryConflicts(fac, owner, conflicts)
	if fac == nil {
		return nil, fmt.Errorf("no plugin provides a client factory for protocol %q (provider %s)", proto, p.Name)
	}
	create := fac.Create
	if f.ImageInput && fac.CreateMultimodal != nil {
		create = fac.CreateMultimodal
	}
	req := contrib.ClientRequest{
		Protocol: proto, Provider: p.Name, Model: m.Name, Endpoint: p.Endpoint, HasAPIKey: key != "",
		Temperature: f.Temperature, TopP: f.TopP, MaxTokens: f.MaxTokens, ContextWindow: f.ContextWindow,
		ImageInput: f.ImageInput, AudioInput: f.AudioInput, VideoInput: f.VideoInput,
		ServiceTier: f.ServiceTier, Speed: f.Speed,
	}
	var codec contrib.Codec
	var err error
	if !owner.Gate.Do(ctx, func(ctx context.Context) { codec, err = create(ctx, req) }) {
		return nil, fmt.Errorf("the client factory of plugin %s was unloaded", owner.Plugin)
	}
	if err != nil {
		if errors.Is(err, contrib.ErrNotSupported) {
			return nil, fmt.Errorf("plugin %s: %v", owner.Plugin, err)
		}
		return nil, fmt.Errorf("plugin %s: client_factory %q failed: %v", owner.Plugin, proto, firstLine(err.Error()))
	}
	u, err := url.Parse(strings.TrimRight(p.Endpoint, "/"))
	if err != nil {
		return nil, err
	}
	return &factoryClient{h: h, plugin: owner.Plugin, generation: owner.Generation, protocol: proto,
		provider: p.Name, model: m.Name, endpoint: u, key: key, codec: codec}, nil
}

// noteFactoryConflicts notes, once per generation, each later plugin that
// claims a protocol an earlier one owns (CC8: first in load order wins).
func (h *Host) noteFactoryConflicts(f *contrib.ClientFactory, owner *contrib.Published, later []*contrib.Published) {
	for _, p := range later {
		key := f.Protocol + "|" + p.Plugin + "|" + p.Generation
		if _, seen := h.models.factoryNotes.LoadOrStore(key, true); seen {
			continue
		}
		var pos contrib.Pos
		for _, g := range p.Set.ClientFactories {
			if strings.EqualFold(g.Protocol, f.Protocol) {
				pos = g.Pos
			}
		}
		h.note(contrib.Diag(contrib.ClientFactoryTaken, p.Plugin, pos,
			"protocol %q is already served by the client factory of %s, earlier in load order; this factory is not used", f.Protocol, owner.Plugin))
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// validMethod reports whether m is an HTTP method token (RFC 9110: one or
// more tchars), as net/http would accept it; "" means GET.
func validMethod(m string) bool {
	for _, r := range m {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// gated runs fn through the factory generation's gate.
func (c *factoryClient) gated(ctx context.Context, fn func(ctx context.Context)) error {
	gate := c.h.registry.View().Gate(c.plugin, c.generation)
	if gate == nil || !gate.Do(ctx, fn) {
		return fmt.Errorf("the client factory of plugin %s was reloaded or stopped; read the client again", c.plugin)
	}
	return nil
}

// Complete encodes req with the factory's codec, sends it, and decodes the
// response. It returns when ctx ends.
func (c *factoryClient) Complete(ctx context.Context, req contrib.ModelRequest) (contrib.ModelReply, error) {
	var call contrib.HTTPCall
	var err error
	if gerr := c.gated(ctx, func(ctx context.Context) { call, err = c.codec.Encode(ctx, req) }); gerr != nil {
		return contrib.ModelReply{}, gerr
	}
	if err != nil {
		return contrib.ModelReply{}, fmt.Errorf("encode: %s", firstLine(err.Error()))
	}
	hr, err := c.request(call)
	if err != nil {
		return contrib.ModelReply{}, err
	}
	answer, err := models.Send(ctx, c.h.opts.ModelTimeout, hr)
	if err != nil {
		return contrib.ModelReply{}, models.Classify(ctx, c.provider, c.model, err)
	}
	resp := contrib.HTTPResponse{Status: answer.Status, Body: answer.Body, Header: answer.Header}
	var reply contrib.ModelReply
	if gerr := c.gated(ctx, func(ctx context.Context) { reply, err = c.codec.Decode(ctx, resp) }); gerr != nil {
		return contrib.ModelReply{}, gerr
	}
	if err != nil {
		return contrib.ModelReply{}, fmt.Errorf("decode: %s", firstLine(err.Error()))
	}
	return reply, nil
}

// request builds the HTTP request: the codec's path is appended to the
// provider's endpoint and must stay on its host; the API key is inserted
// only here. The network transport (models.Send, starhost/models/modelhttp)
// sends it.
func (c *factoryClient) request(call contrib.HTTPCall) (models.HTTPRequest, error) {
	var none models.HTTPRequest
	path := call.Path.Resolve(c.key)
	if path != "" && !strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "?") {
		return none, fmt.Errorf("encode: path must start with / or ?")
	}
	if strings.ContainsAny(path, "\r\n#") {
		return none, fmt.Errorf("encode: path must not contain line breaks or #")
	}
	u, err := url.Parse(c.endpoint.String() + path)
	if err != nil || u.Scheme != c.endpoint.Scheme || u.Host != c.endpoint.Host || u.User != nil {
		return none, fmt.Errorf("encode: the path must stay on the provider's endpoint")
	}
	if !validMethod(call.Method) {
		return none, fmt.Errorf("encode: method %q: invalid method", call.Method)
	}
	hr := models.HTTPRequest{Method: call.Method, URL: u.String(), Header: map[string]string{}, Body: call.Body}
	if hr.Method == "" {
		hr.Method = "GET"
	}
	hasType := false
	for name, value := range call.Header {
		v := value.Resolve(c.key)
		if strings.ContainsAny(name+v, "\r\n") {
			return none, fmt.Errorf("encode: header %s must not contain line breaks", name)
		}
		hr.Header[name] = v
		hasType = hasType || strings.EqualFold(name, "Content-Type")
	}
	if !hasType && len(call.Body) > 0 {
		hr.Header["Content-Type"] = "application/json"
	}
	return hr, nil
}
