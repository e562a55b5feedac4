package builtins

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// fakeHost is a Services with every optional source of this package's host
// facts: session and review views, model clients and data directories.
type fakeHost struct {
	noteLog
	mu         sync.Mutex
	session    *ModelFacts
	review     *ReviewFacts
	epochs     map[contrib.ModelRole]uint64
	created    []contrib.ModelRole
	failReview bool
	client     contrib.ModelClient
	global     string
	project    string
}

func (h *fakeHost) Session() *ModelFacts {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.session
}
func (h *fakeHost) Review() *ReviewFacts {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.review
}
func (h *fakeHost) ModelEpoch(role contrib.ModelRole) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.epochs[role]
}
func (h *fakeHost) ModelClient(_ context.Context, _ string, role contrib.ModelRole) (contrib.ModelClient, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if role == contrib.RoleReview && h.failReview {
		return nil, errors.New("the review provider is down")
	}
	h.created = append(h.created, role)
	if h.client != nil {
		return h.client, nil
	}
	return echoClient{}, nil
}
func (h *fakeHost) DataDirs(_, _ string, _ contrib.Source) (string, string, *contrib.Diagnostic) {
	return h.global, h.project, nil
}

func (h *fakeHost) bump(role contrib.ModelRole) {
	h.mu.Lock()
	if h.epochs == nil {
		h.epochs = map[contrib.ModelRole]uint64{}
	}
	h.epochs[role]++
	h.mu.Unlock()
}

func (h *fakeHost) set(f func(h *fakeHost)) {
	h.mu.Lock()
	f(h)
	h.mu.Unlock()
}

// echoClient answers with what it was asked.
type echoClient struct{}

func (echoClient) Complete(_ context.Context, req contrib.ModelRequest) (contrib.ModelReply, error) {
	last := req.Messages[len(req.Messages)-1]
	return contrib.ModelReply{Text: fmt.Sprintf("%s:%s thinking=%s max=%d images=%d n=%d", last.Role, last.Content,
		req.Thinking, req.MaxTokens, len(req.Images), len(req.Messages))}, nil
}

// activate runs src as plugin acme.test with the given capabilities.
func activate(t *testing.T, h *fakeHost, src string, source contrib.Source, caps ...string) *instance {
	t.Helper()
	req := contrib.ActivationRequest{
		Plugin: "acme.test", DisplayName: "Acme Test", Generation: "g1", Source: source, Directory: "test",
		Bundle: fstest.MapFS{"plugin.star": {Data: []byte(src)}}, Entry: "plugin.star", Services: h, Capabilities: caps,
	}
	inst, err := NewActivator(Options{}).Activate(context.Background(), req)
	if err != nil {
		t.Fatalf("activate: %v", err)
	}
	return inst.(*instance)
}

// callTool invokes the plugin's tool name and returns its text or error.
func callTool(t *testing.T, inst *instance, name string) string {
	t.Helper()
	return callToolCtx(t, context.Background(), inst, name)
}

func callToolCtx(t *testing.T, ctx context.Context, inst *instance, name string) string {
	t.Helper()
	for _, tool := range inst.Set().Tools {
		if tool.Name == name {
			res := tool.Run.Run(ctx, map[string]any{})
			if res.Err != nil {
				return "error: " + res.Err.Code
			}
			return res.Text
		}
	}
	t.Fatalf("no tool %s", name)
	return ""
}

func lastNote(h *fakeHost) string {
	notes := h.All()
	if len(notes) == 0 {
		return ""
	}
	return notes[len(notes)-1].String()
}

const viewSrc = `
def fmt(v):
    return "%s/%s %s thinking=%s tier=%s speed=%s temp=%s" % (v.provider, v.model, v.protocol, v.thinking, v.service_tier, v.speed, v.temperature)

def session(ctx, args):
    return fmt(ctx.session)

def review(ctx, args):
    r = ctx.review
    if not r.independent:
        return "shared model=%s provider=%s" % (r.model, hasattr(r, "provider"))
    return "independent " + fmt(r)

contribute(tools = [
    tool(name = "session", catalogs = "work", run = session),
    tool(name = "review", catalogs = "work", run = review),
])
`

// CC20: ctx.session is a live view: every read asks the host, so a change
// (/model, /thinking, ...) shows on the next read without attach_session.
func TestCC20_SessionViewIsLive(t *testing.T) {
	h := &fakeHost{session: &ModelFacts{Provider: "p", Model: "m1", Protocol: "openai", Thinking: "default"}}
	inst := activate(t, h, viewSrc, contrib.SourceDev)
	if got := callTool(t, inst, "session"); got != "p/m1 openai thinking=default tier=None speed=None temp=None" {
		t.Fatalf("first read: %s", got)
	}
	view := &sessionView{src: h}
	before, _ := view.Attr("model")
	h.set(func(h *fakeHost) { h.session = &ModelFacts{Provider: "p", Model: "m2", Thinking: "high"} })
	after, _ := view.Attr("model")
	if before != starlark.String("m1") || after != starlark.String("m2") {
		t.Errorf("the same view read %s then %s; want m1 then m2", before, after)
	}
	if got := callTool(t, inst, "session"); !strings.HasPrefix(got, "p/m2  thinking=high") {
		t.Errorf("after the change: %s", got)
	}
}

// CC21: tokens as stored — a listed "default" tier is a tier token, unset
// tier and speed are None, effort tokens pass unchanged.
func TestCC21_SessionFactsAreTokens(t *testing.T) {
	temp := 0.5
	h := &fakeHost{session: &ModelFacts{Provider: "p", Model: "m", Protocol: "acme", Thinking: "max", ServiceTier: "default", Temperature: &temp}}
	inst := activate(t, h, viewSrc, contrib.SourceDev)
	if got := callTool(t, inst, "session"); got != "p/m acme thinking=max tier=default speed=None temp=0.5" {
		t.Errorf("got %s", got)
	}
	for _, attr := range (&sessionView{}).AttrNames() {
		for _, secret := range []string{"key", "endpoint", "organization", "project", "url"} {
			if strings.Contains(attr, secret) {
				t.Errorf("ctx.session has %s", attr)
			}
		}
	}
}

// CC22: without independence the review model is None and its names are
// omitted; with it, the review model's own facts.
func TestCC22_ReviewFacts(t *testing.T) {
	h := &fakeHost{session: &ModelFacts{Provider: "p", Model: "m"}, review: &ReviewFacts{}}
	inst := activate(t, h, viewSrc, contrib.SourceDev)
	if got := callTool(t, inst, "review"); got != "shared model=None provider=False" {
		t.Errorf("not independent: %s", got)
	}
	h.set(func(h *fakeHost) {
		h.review = &ReviewFacts{Independent: true, Model: ModelFacts{Provider: "q", Model: "r", Thinking: "default", Speed: "fast"}}
	})
	if got := callTool(t, inst, "review"); got != "independent q/r  thinking=default tier=None speed=fast temp=None" {
		t.Errorf("independent: %s", got)
	}
}

// CC23: before the session is published every view is empty — strings "",
// tier and speed None — in placeholders as everywhere.
func TestCC23_EmptyBeforePublish(t *testing.T) {
	h := &fakeHost{}
	src := `contribute(placeholders = [placeholder(name = "m", resolve = lambda ctx: "[%s|%s|%s|%s]" % (ctx.session.model, ctx.session.service_tier, ctx.review.independent, ctx.review.model))])`
	inst := activate(t, h, src, contrib.SourceDev)
	text, ok, err := inst.Set().Placeholders[0].Resolve(context.Background(), contrib.SitePrompt)
	if err != nil || !ok || text != "[|None|False|None]" {
		t.Errorf("resolve = %q, %v, %v", text, ok, err)
	}
}

const modelsSrc = `
def has(ctx, args):
    return "models=%s" % hasattr(ctx, "models")

def ask(ctx, args):
    return ctx.models.session.complete("hi", max_tokens = 5)

def members(ctx, args):
    m = ctx.models
    return "independent=%s images=%s review=%s" % (m.independent_review, m.images, m.review)

def ident(ctx, args):
    return "%s %s" % (ctx.models.session, ctx.models.session == ctx.models.session)

def review(ctx, args):
    return str(ctx.models.review)

def chat(ctx, args):
    return ctx.models.session.complete([{"role": "system", "content": "be brief"}, {"role": "user", "content": "yo"}])

def picture(ctx, args):
    return ctx.models.images.complete("what is this", images = ["data:image/png;base64,AAAA"])

contribute(tools = [tool(name = n, catalogs = "work", run = f) for n, f in [
    ("has", has), ("ask", ask), ("members", members), ("ident", ident), ("review", review), ("chat", chat), ("picture", picture),
]])
`

// CC24: only plugins that declare models get ctx.models, and the host names
// each at load; built-in plugins never get them.
func TestCC24_ModelsOnlyWithCapability(t *testing.T) {
	for _, tc := range []struct {
		name   string
		source contrib.Source
		caps   []string
		want   string
	}{
		{"no capability", contrib.SourceDev, nil, "models=False"},
		{"capability", contrib.SourceDev, []string{"models"}, "models=True"},
		{"built-in plugin", contrib.SourceBuiltin, []string{"models"}, "models=False"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &fakeHost{session: &ModelFacts{Provider: "p", Model: "m"}}
			inst := activate(t, h, modelsSrc, tc.source, tc.caps...)
			if got := callTool(t, inst, "has"); got != tc.want {
				t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
			}
			named := lastNote(h) == "note: acme.test: Plugin 'Acme Test' can call the session and review models. [ModelAccess]"
			if named != (tc.want == "models=True") {
				t.Errorf("%s: notes %v", tc.name, h.All())
			}
		})
	}
}

// CC26: the members. images is None without image input, independent_review
// creates nothing, review is None unless independent; complete takes a
// string or messages and max_tokens; the images client takes images.
func TestCC26_ClientMembers(t *testing.T) {
	h := &fakeHost{session: &ModelFacts{Provider: "p", Model: "m", Thinking: "low"}, review: &ReviewFacts{}}
	inst := activate(t, h, modelsSrc, contrib.SourceDev, "models")
	if got := callTool(t, inst, "members"); got != "independent=False images=None review=None" {
		t.Errorf("members: %s", got)
	}
	if len(h.created) != 0 {
		t.Errorf("reading independent_review, images and review created %v", h.created)
	}
	if got := callTool(t, inst, "ask"); got != "user:hi thinking=low max=5 images=0 n=1" {
		t.Errorf("complete: %s", got)
	}
	if got := callTool(t, inst, "chat"); got != "user:yo thinking=low max=0 images=0 n=2" {
		t.Errorf("complete(messages): %s", got)
	}
	h.set(func(h *fakeHost) { h.session.ImageInput = true })
	if got := callTool(t, inst, "picture"); got != "user:what is this thinking=low max=0 images=1 n=1" {
		t.Errorf("images client: %s", got)
	}
}

// CC26: when review is independent and its client cannot be created,
// reading review fails; the session client is unaffected.
func TestCC26_ReviewFailureLeavesSession(t *testing.T) {
	h := &fakeHost{session: &ModelFacts{Provider: "p", Model: "m"},
		review: &ReviewFacts{Independent: true, Model: ModelFacts{Provider: "q", Model: "r"}}, failReview: true}
	inst := activate(t, h, modelsSrc, contrib.SourceDev, "models")
	if got := callTool(t, inst, "review"); got != "error: tool_failed" {
		t.Errorf("review: %s", got)
	}
	if !strings.Contains(lastNote(h), "ctx.models.review: the client cannot be created: the review provider is down") {
		t.Errorf("note: %s", lastNote(h))
	}
	if got := callTool(t, inst, "ask"); !strings.HasPrefix(got, "user:hi") {
		t.Errorf("session after a failed review: %s", got)
	}
}

// CC27: the first read creates the client, later reads (in later calls too)
// return the same instance until the host discards it; the next read
// creates anew.
func TestCC27_ClientLifetime(t *testing.T) {
	h := &fakeHost{session: &ModelFacts{Provider: "p", Model: "m"}}
	inst := activate(t, h, modelsSrc, contrib.SourceDev, "models")
	first := callTool(t, inst, "ident")
	if !strings.HasSuffix(first, " True") || callTool(t, inst, "ident") != first {
		t.Fatalf("not the same instance: %s", first)
	}
	h.bump(contrib.RoleReview) // rebuilding review leaves session alone
	if callTool(t, inst, "ident") != first {
		t.Errorf("a review rebuild discarded the session client")
	}
	h.bump(contrib.RoleSession)
	if again := callTool(t, inst, "ident"); again == first {
		t.Errorf("after a rebuild: still %s", again)
	}
	if len(h.created) != 2 {
		t.Errorf("created %v; want two session clients", h.created)
	}
}

// blockingClient blocks until its context ends, like a stalled HTTP call.
type blockingClient struct{ started chan struct{} }

func (c blockingClient) Complete(ctx context.Context, _ contrib.ModelRequest) (contrib.ModelReply, error) {
	close(c.started)
	<-ctx.Done()
	return contrib.ModelReply{}, ctx.Err()
}

// CC24: a Starlark callback blocked in a model call returns when its
// context is cancelled: cancelling the thread alone would not interrupt Go.
func TestCC24_BlockedModelCallHonoursCancellation(t *testing.T) {
	c := blockingClient{started: make(chan struct{})}
	h := &fakeHost{session: &ModelFacts{Provider: "p", Model: "m"}, client: c}
	inst := activate(t, h, modelsSrc, contrib.SourceDev, "models")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-c.started
		cancel()
	}()
	start := time.Now()
	if got := callToolCtx(t, ctx, inst, "ask"); got != "error: tool_failed" {
		t.Errorf("got %s", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call took %s after cancellation", d)
	}
}

// CC8: a factory may claim only its own protocol token; reserved protocols,
// invalid tokens and duplicates are left out at the constructor.
func TestCC8_FactoryProtocolRules(t *testing.T) {
	src := `
def create(req):
    return None

contribute(client_factories = [
    client_factory(protocol = "openai", create = create),
    client_factory(protocol = "Anthropic", create = create),
    client_factory(protocol = "9lives", create = create),
    client_factory(protocol = "acme", create = create),
    client_factory(protocol = "ACME", create = create),
    client_factory(protocol = "acme-2", create = create),
])
`
	inst := activate(t, &fakeHost{}, src, contrib.SourceDev)
	set := inst.Set()
	var kept []string
	for _, f := range set.ClientFactories {
		kept = append(kept, f.Protocol)
	}
	if strings.Join(kept, " ") != "acme acme-2" {
		t.Errorf("kept %v", kept)
	}
	var lines []string
	for _, d := range set.Diagnostics {
		lines = append(lines, d.String())
	}
	want := []string{
		`plugin.star:6:19: error: acme.test: client factory protocol "openai" is owned by the host (built-in adapters keep precedence); the factory is left out [ClientFactoryRejected]`,
		`plugin.star:7:19: error: acme.test: client factory protocol "Anthropic" is owned by the host (built-in adapters keep precedence); the factory is left out [ClientFactoryRejected]`,
		`plugin.star:8:19: error: acme.test: client factory protocol "9lives" must start with a letter; the factory is left out [ClientFactoryRejected]`,
		`plugin.star:10:19: error: acme.test: client factory protocol "ACME" is declared twice in this plugin; the later one is left out [ClientFactoryRejected]`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

const factorySrc = `
def decode(resp):
    if resp.status != 200:
        return error("http_error", "status %d" % resp.status)
    return {"text": resp.json["answer"], "output_tokens": 3}

def create(req):
    if req.service_tier and req.service_tier != "flex":
        return error("not_supported", "tier %s" % req.service_tier)
    print("create %s %s %s %s audio=%s video=%s tier=%s speed=%s key=%s temp=%s" % (
        req.protocol, req.provider, req.model, req.endpoint, req.audio_input, req.video_input,
        req.service_tier, req.speed, req.api_key, req.sampling.temperature))
    return struct(encode = lambda r: encode(r, req.api_key), decode = decode)

def encode(r, key):
    return {
        "path": "/acme/complete",
        "headers": {"X-Api-Key": key, "Authorization": ["Bearer ", key]},
        "body": {"q": r.messages[-1]["content"], "thinking": r.thinking, "max": r.max_tokens},
    }

def leak(req):
    return struct(encode = lambda r: {"body": {"k": req.api_key}}, decode = decode)

contribute(client_factories = [
    client_factory(protocol = "acme", create = create),
    client_factory(protocol = "leaky", create = leak),
])
`

// CC9: create receives the request (endpoint, sampling, declared audio and
// video, tier, speed) and an opaque API key; encode and decode are pure and
// the key reaches only the HTTP call, where the host inserts it.
func TestCC9_FactoryRequestAndCodec(t *testing.T) {
	h := &fakeHost{}
	inst := activate(t, h, factorySrc, contrib.SourceDev)
	f := inst.Set().ClientFactories[0]
	temp := 0.3
	req := contrib.ClientRequest{Protocol: "acme", Provider: "p", Model: "m", Endpoint: "http://x", HasAPIKey: true,
		Temperature: &temp, AudioInput: true, ServiceTier: "flex"}
	codec, err := f.Create(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := lastNote(h); !strings.Contains(got, "create acme p m http://x audio=True video=False tier=flex speed=None key=<api key> temp=0.3") {
		t.Errorf("create saw: %s", got)
	}
	call, err := codec.Encode(context.Background(), contrib.ModelRequest{Messages: []contrib.Message{{Role: "user", Content: "hi"}}, Thinking: "max"})
	if err != nil {
		t.Fatal(err)
	}
	if call.Method != "POST" || call.Path.Resolve("K") != "/acme/complete" || string(call.Body) != `{"q":"hi","thinking":"max","max":null}` {
		t.Errorf("call = %+v body %s", call, call.Body)
	}
	if call.Header["Authorization"].Resolve("sk-1") != "Bearer sk-1" || call.Header["X-Api-Key"].Resolve("sk-1") != "sk-1" {
		t.Errorf("headers = %+v", call.Header)
	}
	reply, err := codec.Decode(context.Background(), contrib.HTTPResponse{Status: 200, Body: []byte(`{"answer": "yes"}`)})
	if err != nil || reply.Text != "yes" || reply.OutputTokens != 3 {
		t.Errorf("decode = %+v, %v", reply, err)
	}
	if _, err := codec.Decode(context.Background(), contrib.HTTPResponse{Status: 500}); err == nil || err.Error() != "http_error: status 500" {
		t.Errorf("decode error = %v", err)
	}
	// The key cannot become part of a body.
	leaky, err := inst.Set().ClientFactories[1].Create(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaky.Encode(context.Background(), contrib.ModelRequest{}); err == nil || !strings.Contains(err.Error(), "cannot encode a api_key as JSON") {
		t.Errorf("a key in the body: %v", err)
	}
	// A set tier the factory cannot honour is not_supported.
	req.ServiceTier = "priority"
	if _, err := f.Create(context.Background(), req); !errors.Is(err, contrib.ErrNotSupported) {
		t.Errorf("tier priority: %v", err)
	}
}

// CC10: classify returns {"risk", "permission"} or None; anything else is a
// failure of the plugin's classifier.
func TestCC10_ClassifierResults(t *testing.T) {
	src := `
def classify(ctx, tool, args):
    if tool == "deploy":
        return {"risk": "high", "permission": "ask"}
    if tool == "bad":
        return {"risk": "extreme", "permission": "ask"}
    return None

contribute(classifiers = [classifier(classify = classify)])
`
	inst := activate(t, &fakeHost{}, src, contrib.SourceDev)
	cl := inst.Set().Classifiers[0]
	if c, ok, err := cl.Classify(context.Background(), "deploy", map[string]any{}); err != nil || !ok || c.Risk != "high" || c.Permission != "ask" {
		t.Errorf("deploy: %v %v %v", c, ok, err)
	}
	if _, ok, err := cl.Classify(context.Background(), "other", nil); ok || err != nil {
		t.Errorf("other: %v %v", ok, err)
	}
	if _, _, err := cl.Classify(context.Background(), "bad", nil); err == nil || !strings.Contains(err.Error(), `risk "extreme" is not one of [low medium high]`) {
		t.Errorf("bad: %v", err)
	}
}
