package builtins

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// ModelSource is implemented by Services that give plugins model clients
// (CC24–CC27). The host decides which provider and model a role uses and
// reports every call to the embedder apart from turns: plugin model calls
// are not part of the transcript, the approval path or the turn budget.
type ModelSource interface {
	// ModelClient creates a fresh client of role for plugin, separate from
	// the clients the host uses for turns and review (CC25). It fails when
	// the client cannot be built (review not independent, no adapter, a
	// factory's not_supported).
	ModelClient(ctx context.Context, plugin string, role contrib.ModelRole) (contrib.ModelClient, error)
	// ModelEpoch identifies the current build of role's client: it changes
	// when the host rebuilds the session client (session and images) or
	// the review client, or switches independence off (review). A client
	// created under another epoch is discarded (CC27).
	ModelEpoch(role contrib.ModelRole) uint64
}

// modelsCtx is ctx.models, present only with the models capability.
func modelsCtx(c *callCtx) starlark.Value {
	src := c.inst.modelSource()
	if src == nil {
		return nil
	}
	mk := func() *modelCache { return &modelCache{clients: map[contrib.ModelRole]*clientValue{}} }
	if sc := contrib.SessionFrom(c.ctx); sc != nil {
		// A session's clients are the session's: another session may use
		// another model. Its epochs say when they are discarded.
		if epochs, ok := sc.(ModelEpochs); ok {
			src = scopedModels{ModelSource: src, epochs: epochs}
		}
		key := modelsKey{c.inst.req.Plugin, c.inst.req.Generation}
		cache := sc.Locals().Get(key, func() any { return mk() }).(*modelCache)
		return &modelsValue{c: c, src: src, cache: cache}
	}
	return &modelsValue{c: c, src: src, cache: featureState(c.inst, "models", mk)}
}

// ModelEpochs is implemented by a contrib.SessionScope whose session has model
// clients of its own: the epochs of its session and review clients.
type ModelEpochs interface {
	ModelEpoch(role contrib.ModelRole) uint64
}

// scopedModels is the host's model source with a session's epochs.
type scopedModels struct {
	ModelSource
	epochs ModelEpochs
}

func (s scopedModels) ModelEpoch(role contrib.ModelRole) uint64 { return s.epochs.ModelEpoch(role) }

// modelsKey keys a generation's client cache in a session's locals.
type modelsKey struct{ plugin, generation string }

// noteModelAccess is CC24: the host names each plugin that can call the
// models, once per generation, when it loads.
func noteModelAccess(inst *instance) {
	if inst.modelsAllowed() {
		inst.note(contrib.Diag(contrib.ModelAccess, inst.req.Plugin, contrib.Pos{},
			"Plugin '%s' can call the session and review models.", inst.req.DisplayName))
	}
}

// modelsAllowed reports whether the plugin receives model clients: it
// declares the models capability and is not a built-in plugin (CC24).
func (inst *instance) modelsAllowed() bool {
	return inst.hasCapability("models") && inst.req.Source != contrib.SourceBuiltin
}

// modelSource returns the host's model source, or nil when this generation
// gets no ctx.models.
func (inst *instance) modelSource() ModelSource {
	src, ok := inst.req.Services.(ModelSource)
	if !ok || !inst.modelsAllowed() {
		return nil
	}
	return src
}

// modelCache holds a generation's clients: created on first read, the same
// instance until the host discards it (CC27).
type modelCache struct {
	mu      sync.Mutex
	clients map[contrib.ModelRole]*clientValue
}

// modelsValue is ctx.models for one call; the clients it hands out live in
// the generation's cache.
type modelsValue struct {
	c     *callCtx
	src   ModelSource
	cache *modelCache
}

var _ starlark.HasAttrs = (*modelsValue)(nil)

func (m *modelsValue) String() string        { return "<models>" }
func (m *modelsValue) Type() string          { return "models" }
func (m *modelsValue) Freeze()               {}
func (m *modelsValue) Truth() starlark.Bool  { return starlark.True }
func (m *modelsValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: models") }

// AttrNames lists the members (CC26).
func (m *modelsValue) AttrNames() []string {
	return []string{"images", "independent_review", "review", "session"}
}

// Attr returns one member. independent_review creates nothing; session is
// None until the host publishes a session model; images is None when the
// session model takes no images; review is None unless
// review is independent, and reading it fails when its client cannot be
// created (the session client is unaffected).
func (m *modelsValue) Attr(name string) (starlark.Value, error) {
	session, review := m.facts()
	switch name {
	case "independent_review":
		return starlark.Bool(review.Independent), nil
	case "session":
		if session.Model == "" {
			return starlark.None, nil // no session model published yet
		}
		return m.client(contrib.RoleSession, session)
	case "images":
		if !session.ImageInput || session.Model == "" {
			return starlark.None, nil
		}
		return m.client(contrib.RoleImages, session)
	case "review":
		if !review.Independent {
			m.discard(contrib.RoleReview)
			return starlark.None, nil
		}
		return m.client(contrib.RoleReview, review.Model)
	}
	return nil, nil
}

func (m *modelsValue) facts() (ModelFacts, ReviewFacts) {
	var session ModelFacts
	var review ReviewFacts
	if src := m.c.sessionSource(); src != nil {
		if s := src.Session(); s != nil {
			session = *s
		}
		if r := src.Review(); r != nil {
			review = *r
		}
	}
	return session, review
}

func (m *modelsValue) discard(role contrib.ModelRole) {
	m.cache.mu.Lock()
	delete(m.cache.clients, role)
	m.cache.mu.Unlock()
}

// client returns the cached client of role, creating it when there is none
// or the host discarded the cached one.
func (m *modelsValue) client(role contrib.ModelRole, facts ModelFacts) (starlark.Value, error) {
	m.cache.mu.Lock()
	defer m.cache.mu.Unlock()
	epoch := m.src.ModelEpoch(role)
	if cv, ok := m.cache.clients[role]; ok && cv.epoch == epoch {
		return cv, nil
	}
	delete(m.cache.clients, role)
	ctx := m.c.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	client, err := m.src.ModelClient(ctx, m.c.inst.req.Plugin, role)
	if err != nil {
		return nil, fmt.Errorf("ctx.models.%s: the client cannot be created: %w", role, err)
	}
	cv := &clientValue{role: role, epoch: epoch, serial: clientSerial.Add(1), client: client,
		provider: facts.Provider, model: facts.Model, src: m.src, inst: m.c.inst}
	m.cache.clients[role] = cv
	return cv, nil
}

// clientSerial numbers client instances so a plugin (and a test) can tell
// one from the next in str().
var clientSerial atomic.Uint64

// clientValue is one model client as Starlark sees it: complete(...) and
// the provider and model it was created for.
type clientValue struct {
	role            contrib.ModelRole
	epoch, serial   uint64
	client          contrib.ModelClient
	provider, model string
	src             ModelSource
	inst            *instance
}

var _ starlark.HasAttrs = (*clientValue)(nil)

func (cv *clientValue) String() string {
	return fmt.Sprintf("<model client %s #%d %s/%s>", cv.role, cv.serial, cv.provider, cv.model)
}
func (cv *clientValue) Type() string          { return "model_client" }
func (cv *clientValue) Freeze()               {}
func (cv *clientValue) Truth() starlark.Bool  { return starlark.True }
func (cv *clientValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: model_client") }

// AttrNames lists complete, model, provider and role.
func (cv *clientValue) AttrNames() []string { return []string{"complete", "model", "provider", "role"} }

// Attr returns one attribute.
func (cv *clientValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "role":
		return starlark.String(cv.role), nil
	case "provider":
		return starlark.String(cv.provider), nil
	case "model":
		return starlark.String(cv.model), nil
	case "complete":
		return starlark.NewBuiltin("complete", cv.complete), nil
	}
	return nil, nil
}

// complete(prompt, max_tokens = None, images = None, on_error = "fail")
// sends one request and returns the reply text. prompt is a string (one
// user message) or a list of {"role": ..., "content": ...}; images is
// accepted only by the images client. A failed call fails the callback, or
// with on_error = "return" comes back as error(code, message) — falsy, with
// the stable code of the failure (rate_limited, unauthorized, ...) — so a
// plugin can act on it. The call blocks in Go and returns when the run's
// context ends.
func (cv *clientValue) complete(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var prompt starlark.Value
	var maxTokens, images starlark.Value = starlark.None, starlark.None
	onError := "fail"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "prompt", &prompt, "max_tokens?", &maxTokens, "images?", &images, "on_error?", &onError); err != nil {
		return nil, err
	}
	if onError != "fail" && onError != "return" {
		return nil, fmt.Errorf("complete: on_error must be \"fail\" or \"return\", not %q", onError)
	}
	req := contrib.ModelRequest{Thinking: cv.thinking()}
	var err error
	if req.Messages, err = messages(prompt); err != nil {
		return nil, fmt.Errorf("complete: %v", err)
	}
	if maxTokens != starlark.None {
		n, ok := maxTokens.(starlark.Int)
		v, exact := int64(0), false
		if ok {
			v, exact = n.Int64()
		}
		if !exact || v < 1 || v > 1<<31 {
			return nil, fmt.Errorf("complete: max_tokens must be a positive int or None, not %s", maxTokens)
		}
		req.MaxTokens = int(v)
	}
	if images != starlark.None {
		if cv.role != contrib.RoleImages {
			return nil, fmt.Errorf("complete: images are accepted only by ctx.models.images")
		}
		if req.Images, err = stringList(images, "images"); err != nil {
			return nil, fmt.Errorf("complete: %v", err)
		}
	}
	// The epoch is the session's now, asked through the call being served:
	// a client cached by an earlier call of the session holds that call's
	// scope, which in a worker can no longer reach the host.
	src := cv.src
	if sc := contrib.SessionFrom(threadContext(th)); sc != nil {
		if epochs, ok := sc.(ModelEpochs); ok {
			src = scopedModels{ModelSource: cv.src, epochs: epochs}
		}
	}
	if src.ModelEpoch(cv.role) != cv.epoch {
		return nil, fmt.Errorf("complete: this %s client was discarded by the host (the model or its settings changed); read ctx.models.%s again", cv.role, cv.role)
	}
	done := hostWait(th) // the heap watchdog does not take a waiting run for the one growing the heap
	reply, err := cv.client.Complete(threadContext(th), req)
	done()
	if err != nil && onError == "return" {
		// The adapters' errors read "code: provider/model: what"; the
		// message of error(code, message) does not repeat the code.
		code := modelErrorCode(err)
		return &errorValue{code: code, message: strings.TrimPrefix(err.Error(), code+": ")}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("complete: %v", err)
	}
	return starlark.String(reply.Text), nil
}

// modelErrorCode is the stable code of a failed model call: the one the
// host's adapters give (an error with an ErrorCode method), else
// model_failed (a client factory's codec, a discarded client).
func modelErrorCode(err error) string {
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) {
		return coded.ErrorCode()
	}
	return "model_failed"
}

// thinking is the effort the client's role uses now.
func (cv *clientValue) thinking() string {
	src, _ := cv.inst.req.Services.(SessionSource)
	if src == nil {
		return "default"
	}
	var f *ModelFacts
	if cv.role == contrib.RoleReview {
		if r := src.Review(); r != nil && r.Independent {
			f = &r.Model
		}
	} else {
		f = src.Session()
	}
	if f == nil || f.Thinking == "" {
		return "default"
	}
	return f.Thinking
}

// messages reads a prompt: a string or a list of {role, content} dicts.
func messages(prompt starlark.Value) ([]contrib.Message, error) {
	if s, ok := prompt.(starlark.String); ok {
		return []contrib.Message{{Role: "user", Content: string(s)}}, nil
	}
	list, ok := prompt.(starlark.Indexable)
	if !ok || list.Len() == 0 {
		return nil, fmt.Errorf("prompt must be a string or a non-empty list of {\"role\": ..., \"content\": ...}, not %s", prompt.Type())
	}
	out := make([]contrib.Message, list.Len())
	for i := range out {
		d, ok := list.Index(i).(*starlark.Dict)
		if !ok {
			return nil, fmt.Errorf("prompt[%d] must be a dict {\"role\": ..., \"content\": ...}, not %s", i, list.Index(i).Type())
		}
		for _, key := range []string{"role", "content"} {
			v, found, _ := d.Get(starlark.String(key))
			s, isStr := v.(starlark.String)
			if !found || !isStr {
				return nil, fmt.Errorf("prompt[%d] needs a string %q", i, key)
			}
			if key == "role" {
				out[i].Role = string(s)
			} else {
				out[i].Content = string(s)
			}
		}
		switch out[i].Role {
		case "system", "user", "assistant":
		default:
			return nil, fmt.Errorf("prompt[%d]: role %q is not system, user or assistant", i, out[i].Role)
		}
	}
	return out, nil
}

// stringList reads a list or tuple of strings.
func stringList(v starlark.Value, what string) ([]string, error) {
	list, ok := v.(starlark.Indexable)
	if !ok {
		return nil, fmt.Errorf("%s must be a list of strings, not %s", what, v.Type())
	}
	out := make([]string, list.Len())
	for i := range out {
		s, ok := list.Index(i).(starlark.String)
		if !ok {
			return nil, fmt.Errorf("%s[%d] must be a string, not %s", what, i, list.Index(i).Type())
		}
		out[i] = string(s)
	}
	return out, nil
}
