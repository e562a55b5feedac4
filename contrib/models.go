package contrib

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ModelRole names one of the model clients a plugin can hold (CC26).
type ModelRole string

// The model client roles. Images is the session model's image client.
const (
	RoleSession ModelRole = "session"
	RoleImages  ModelRole = "images"
	RoleReview  ModelRole = "review"
)

// Message is one chat message of a model request.
type Message struct {
	Role    string `json:"role"` // "system", "user" or "assistant"
	Content string `json:"content"`
}

// ModelRequest is one completion request of a model client.
type ModelRequest struct {
	Messages []Message
	// MaxTokens bounds the reply; 0 leaves the model's default.
	MaxTokens int
	// Thinking is the effort token to send: "default" sends none, "off"
	// turns thinking off, anything else is a listed effort token (CC21).
	Thinking string
	// Images are image URLs or data: URLs; only image clients accept them.
	Images []string
}

// ModelReply is a model's answer.
type ModelReply struct {
	Text         string
	FinishReason string
	InputTokens  int
	OutputTokens int
}

// ModelClient completes requests against one provider and model. It must be
// safe for concurrent use and must honour ctx: a call blocked on the network
// returns when ctx ends.
type ModelClient interface {
	Complete(ctx context.Context, req ModelRequest) (ModelReply, error)
}

// ErrNotSupported is the error of a client factory that cannot honour a
// request's non-empty slot (a service tier or speed, CC9).
var ErrNotSupported = errors.New("not_supported")

// reservedProtocols are the protocols the host owns even where it ships no
// adapter for them (CC8): client factories claiming one are left out.
var reservedProtocols = []string{"deepseek", "openai", "responses", "anthropic", "gemini", "ollama"}

// IsReservedProtocol reports whether protocol is one of reservedProtocols,
// compared case-insensitively.
func IsReservedProtocol(protocol string) bool {
	return slices.Contains(reservedProtocols, strings.ToLower(protocol))
}

// ClientRequest is what a client factory receives when the host builds a
// client for a model of its protocol (CC9). It carries no API key: the key
// stays in Go and is inserted into the outgoing HTTP request where the
// codec's Encode asked for it (TextPart.APIKey), so it never reaches plugin
// code, notes or output.
type ClientRequest struct {
	Protocol      string
	Provider      string
	Model         string
	Endpoint      string
	HasAPIKey     bool // an API key is configured; Encode can ask for it
	Temperature   *float64
	TopP          *float64
	MaxTokens     int
	ContextWindow int
	ImageInput    bool
	AudioInput    bool // declared only: nothing accepts audio because of it
	VideoInput    bool // declared only
	ServiceTier   string
	Speed         string
}

// TextPart is one piece of a header value or request path built by a
// codec: literal text, or the API key (inserted by the host at send time).
type TextPart struct {
	Literal string
	APIKey  bool
}

// Text is a header value or path made of parts.
type Text []TextPart

// Resolve joins the parts, inserting key for each APIKey part.
func (t Text) Resolve(key string) string {
	var b strings.Builder
	for _, p := range t {
		if p.APIKey {
			b.WriteString(key)
		} else {
			b.WriteString(p.Literal)
		}
	}
	return b.String()
}

// HTTPCall is the HTTP request a codec encodes. Path is appended to the
// provider's endpoint: a codec cannot send to another host.
type HTTPCall struct {
	Method string
	Path   Text
	Header map[string]Text
	Body   []byte
}

// HTTPResponse is what the host received for an HTTPCall.
type HTTPResponse struct {
	Status int
	Header map[string]string // lowercase names
	Body   []byte
}

// Codec turns model requests into HTTP calls and responses into replies for
// one client. The host performs the HTTP call in between; a codec does no
// I/O. It must be safe for concurrent use.
type Codec interface {
	Encode(ctx context.Context, req ModelRequest) (HTTPCall, error)
	Decode(ctx context.Context, resp HTTPResponse) (ModelReply, error)
}

// CreateFunc builds a codec for one client. It fails with an error wrapping
// ErrNotSupported when it cannot honour a non-empty slot of req.
type CreateFunc func(ctx context.Context, req ClientRequest) (Codec, error)

// ClientFactory is one client_factory(...) contribution (CC8, CC9): it owns
// one custom protocol. CreateMultimodal, when set, is used instead of Create
// for models that take image input.
type ClientFactory struct {
	Protocol         string
	Pos              Pos
	Create           CreateFunc
	CreateMultimodal CreateFunc
}

// AddClientFactory validates f's protocol token (CC8) and stages it. A
// reserved protocol, an invalid token or a second factory for the same
// protocol in this plugin is left out with a diagnostic at the constructor.
func (s *Staging) AddClientFactory(f ClientFactory) {
	if err := CheckProtocol(f.Protocol); err != nil {
		s.Report(clientFactoryRejected, f.Pos, "client factory protocol %q %v; the factory is left out", f.Protocol, err)
		return
	}
	switch {
	case IsReservedProtocol(f.Protocol):
		s.Report(clientFactoryRejected, f.Pos, "client factory protocol %q is owned by the host (built-in adapters keep precedence); the factory is left out", f.Protocol)
		return
	}
	for _, g := range s.set.ClientFactories {
		if fold(g.Protocol) == fold(f.Protocol) {
			s.Report(clientFactoryRejected, f.Pos, "client factory protocol %q is declared twice in this plugin; the later one is left out", f.Protocol)
			return
		}
	}
	s.set.ClientFactories = append(s.set.ClientFactories, f)
}

// ClientFactoryFor returns the factory that owns protocol, first in catalog
// load order (CC8), with its generation's gate; ok is false when no plugin
// claims it. Conflicts lists the later claimants that were passed over.
func (v *View) ClientFactoryFor(protocol string) (f *ClientFactory, owner *Published, conflicts []*Published) {
	for _, p := range v.order {
		for i := range p.Set.ClientFactories {
			if fold(p.Set.ClientFactories[i].Protocol) != fold(protocol) {
				continue
			}
			if f == nil {
				f, owner = &p.Set.ClientFactories[i], p
			} else {
				conflicts = append(conflicts, p)
			}
		}
	}
	return f, owner, conflicts
}

// NotSupported returns an error wrapping ErrNotSupported with an English
// explanation.
func NotSupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotSupported, fmt.Sprintf(format, args...))
}
