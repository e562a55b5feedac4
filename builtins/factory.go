package builtins

import (
	"context"
	"fmt"
	"strings"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// A client factory (CC8, CC9) is Starlark only where it can be pure: create
// turns a request into a client, and the client's encode and decode turn a
// model request into an HTTP call and the HTTP response into a reply. The
// host performs the HTTP call in Go, appends the codec's path to the
// operator's endpoint, and inserts the API key where encode placed
// request.api_key — an opaque value: the key itself never enters Starlark.

// factorySpec is the kind-specific part of a client_factory entry.
type factorySpec struct{ create, multimodal starlark.Callable }

func newClientFactory(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var protocol string
	var create starlark.Callable
	var multimodal starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "protocol", &protocol, "create", &create, "create_multimodal?", &multimodal); err != nil {
		return nil, err
	}
	spec := factorySpec{create: create}
	if multimodal != starlark.None {
		fn, ok := multimodal.(starlark.Callable)
		if !ok {
			return nil, fmt.Errorf("client_factory: create_multimodal must be a function or None, not %s", multimodal.Type())
		}
		spec.multimodal = fn
	}
	e := newEntry(th, "client_factory", protocol)
	e.extra = spec
	return e, nil
}

func stageClientFactory(inst *instance, e *entry) {
	spec := e.extra.(factorySpec)
	f := contrib.ClientFactory{Protocol: e.name, Pos: e.pos, Create: inst.createFunc(e.name, e.pos, spec.create, "create")}
	if spec.multimodal != nil {
		f.CreateMultimodal = inst.createFunc(e.name, e.pos, spec.multimodal, "create_multimodal")
	}
	inst.staging.AddClientFactory(f)
}

// apiKeyValue stands for the operator's API key inside Starlark. It prints
// as <api key>, cannot become JSON, and is replaced by the key only when the
// host sends the HTTP call.
type apiKeyValue struct{}

func (apiKeyValue) String() string        { return "<api key>" }
func (apiKeyValue) Type() string          { return "api_key" }
func (apiKeyValue) Freeze()               {}
func (apiKeyValue) Truth() starlark.Bool  { return starlark.True }
func (apiKeyValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: api_key") }

func optionalString(s string) starlark.Value {
	if s == "" {
		return starlark.None
	}
	return starlark.String(s)
}

func optionalFloat(p *float64) starlark.Value {
	if p == nil {
		return starlark.None
	}
	return starlark.Float(*p)
}

// requestValue is create's argument (CC9).
func requestValue(req contrib.ClientRequest) starlark.Value {
	var key starlark.Value = starlark.None
	if req.HasAPIKey {
		key = apiKeyValue{}
	}
	var maxTokens starlark.Value = starlark.None
	if req.MaxTokens > 0 {
		maxTokens = starlark.MakeInt(req.MaxTokens)
	}
	return record("client_request", starlark.StringDict{
		"protocol": starlark.String(req.Protocol), "provider": starlark.String(req.Provider),
		"model": starlark.String(req.Model), "endpoint": starlark.String(req.Endpoint), "api_key": key,
		"sampling": record("sampling", starlark.StringDict{
			"temperature": optionalFloat(req.Temperature), "top_p": optionalFloat(req.TopP), "max_tokens": maxTokens,
		}),
		"context_window": starlark.MakeInt(req.ContextWindow),
		"image_input":    starlark.Bool(req.ImageInput),
		"audio_input":    starlark.Bool(req.AudioInput),
		"video_input":    starlark.Bool(req.VideoInput),
		"service_tier":   optionalString(req.ServiceTier),
		"speed":          optionalString(req.Speed),
	})
}

// createFunc adapts create (or create_multimodal): it returns a codec, or
// contrib.ErrNotSupported when create returned error("not_supported", ...).
func (inst *instance) createFunc(protocol string, pos contrib.Pos, fn starlark.Callable, which string) contrib.CreateFunc {
	what := fmt.Sprintf("client_factory %q %s", protocol, which)
	return func(ctx context.Context, req contrib.ClientRequest) (contrib.Codec, error) {
		out, err := inst.call(ctx, what, fn, requestValue(req))
		if err != nil {
			return nil, err
		}
		if ev, ok := out.(*errorValue); ok {
			if ev.code == "not_supported" {
				return nil, contrib.NotSupported("%s", ev.message)
			}
			return nil, fmt.Errorf("%s: %s: %s", what, ev.code, ev.message)
		}
		encode, decode := member(out, "encode"), member(out, "decode")
		if encode == nil || decode == nil {
			return nil, inst.badReturn(pos, what, out, "a client: struct(encode = fn, decode = fn) or error(\"not_supported\", ...)")
		}
		out.Freeze() // shared by concurrent calls from now on
		return &starCodec{inst: inst, pos: pos, what: fmt.Sprintf("client_factory %q", protocol), encode: encode, decode: decode}, nil
	}
}

// member returns v.name (a struct field or dict key) when it is callable.
func member(v starlark.Value, name string) starlark.Callable {
	var m starlark.Value
	switch v := v.(type) {
	case *starlark.Dict:
		m, _, _ = v.Get(starlark.String(name))
	case starlark.HasAttrs:
		m, _ = v.Attr(name)
	}
	fn, _ := m.(starlark.Callable)
	return fn
}

// starCodec runs a factory client's encode and decode in the factory
// plugin's generation.
type starCodec struct {
	inst           *instance
	pos            contrib.Pos
	what           string
	encode, decode starlark.Callable
}

var _ contrib.Codec = (*starCodec)(nil)

// Encode calls encode(request) and reads the HTTP call it returns:
// {"method": "POST", "path": "/v1/x", "headers": {...}, "body": str or JSON}.
func (c *starCodec) Encode(ctx context.Context, req contrib.ModelRequest) (contrib.HTTPCall, error) {
	msgs := make([]any, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	var maxTokens starlark.Value = starlark.None
	if req.MaxTokens > 0 {
		maxTokens = starlark.MakeInt(req.MaxTokens)
	}
	arg := record("model_request", starlark.StringDict{
		"messages": FromJSON(msgs), "max_tokens": maxTokens, "thinking": starlark.String(req.Thinking),
		"images": FromJSON(req.Images),
	})
	what := c.what + " encode"
	out, err := c.inst.call(ctx, what, c.encode, arg)
	if err != nil {
		return contrib.HTTPCall{}, err
	}
	d, ok := out.(*starlark.Dict)
	if !ok {
		return contrib.HTTPCall{}, c.inst.badReturn(c.pos, what, out, `a dict {"method", "path", "headers", "body"}`)
	}
	return c.httpCall(d)
}

func (c *starCodec) httpCall(d *starlark.Dict) (contrib.HTTPCall, error) {
	call := contrib.HTTPCall{Method: "POST", Header: map[string]contrib.Text{}}
	for _, item := range d.Items() {
		key, _ := item[0].(starlark.String)
		var err error
		switch key {
		case "method":
			m, ok := item[1].(starlark.String)
			if !ok || m == "" {
				return call, fmt.Errorf("%s encode: method must be a string", c.what)
			}
			call.Method = strings.ToUpper(string(m))
		case "path":
			if call.Path, err = textParts(item[1]); err != nil {
				return call, fmt.Errorf("%s encode: path: %w", c.what, err)
			}
		case "headers":
			h, ok := item[1].(*starlark.Dict)
			if !ok {
				return call, fmt.Errorf("%s encode: headers must be a dict", c.what)
			}
			for _, hv := range h.Items() {
				name, ok := hv[0].(starlark.String)
				if !ok {
					return call, fmt.Errorf("%s encode: header names must be strings", c.what)
				}
				if call.Header[string(name)], err = textParts(hv[1]); err != nil {
					return call, fmt.Errorf("%s encode: header %s: %w", c.what, name, err)
				}
			}
		case "body":
			if s, ok := item[1].(starlark.String); ok {
				call.Body = []byte(s)
			} else if call.Body, err = ToJSON(item[1]); err != nil {
				return call, fmt.Errorf("%s encode: body: %w", c.what, err)
			}
		default:
			return call, fmt.Errorf("%s encode: unknown key %s; want method, path, headers, body", c.what, item[0])
		}
	}
	return call, nil
}

// textParts reads a header value or path: a string, the api_key, or a list
// of both.
func textParts(v starlark.Value) (contrib.Text, error) {
	part := func(v starlark.Value) (contrib.TextPart, error) {
		switch v := v.(type) {
		case starlark.String:
			return contrib.TextPart{Literal: string(v)}, nil
		case apiKeyValue:
			return contrib.TextPart{APIKey: true}, nil
		}
		return contrib.TextPart{}, fmt.Errorf("want a string, request.api_key or a list of them, not %s", v.Type())
	}
	if list, ok := v.(*starlark.List); ok {
		out := make(contrib.Text, list.Len())
		for i := range out {
			p, err := part(list.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = p
		}
		return out, nil
	}
	p, err := part(v)
	return contrib.Text{p}, err
}

// Decode calls decode(response) with status, headers, body and json (the
// body decoded, or None) and reads the reply: a string, or a dict with
// "text" and optionally "finish_reason", "input_tokens", "output_tokens";
// error(code, message) is a failed call.
func (c *starCodec) Decode(ctx context.Context, resp contrib.HTTPResponse) (contrib.ModelReply, error) {
	headers := map[string]any{}
	for k, v := range resp.Header {
		headers[k] = v
	}
	var parsed starlark.Value = starlark.None
	if v, err := decodeJSON(resp.Body); err == nil {
		parsed = FromJSON(v)
	}
	arg := record("http_response", starlark.StringDict{
		"status": starlark.MakeInt(resp.Status), "headers": FromJSON(headers),
		"body": starlark.String(resp.Body), "json": parsed,
	})
	what := c.what + " decode"
	out, err := c.inst.call(ctx, what, c.decode, arg)
	if err != nil {
		return contrib.ModelReply{}, err
	}
	switch v := out.(type) {
	case starlark.String:
		return contrib.ModelReply{Text: string(v)}, nil
	case *errorValue:
		return contrib.ModelReply{}, fmt.Errorf("%s: %s", v.code, v.message)
	case *starlark.Dict:
		data, err := copyJSON(v)
		if err != nil {
			return contrib.ModelReply{}, fmt.Errorf("%s: %v", what, err)
		}
		m := data.(map[string]any)
		text, ok := m["text"].(string)
		if !ok {
			return contrib.ModelReply{}, c.inst.badReturn(c.pos, what, out, `a string or a dict with a string "text"`)
		}
		reply := contrib.ModelReply{Text: text}
		reply.FinishReason, _ = m["finish_reason"].(string)
		reply.InputTokens = jsonInt(m["input_tokens"])
		reply.OutputTokens = jsonInt(m["output_tokens"])
		return reply, nil
	}
	return contrib.ModelReply{}, c.inst.badReturn(c.pos, what, out, `a string, a dict with "text", or error(code, message)`)
}

func jsonInt(v any) int {
	switch n := v.(type) {
	case interface{ Int64() (int64, error) }:
		i, _ := n.Int64()
		return int(i)
	case float64:
		return int(n)
	}
	return 0
}
