package starhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/internal/testkit/hostkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/models"
	"github.com/crystal-star/crystal-star/starhost/models/modelfake"
)

// testKey is the API key of these tests; no byte of output may show it.
const testKey = "sk-test-0123456789abcdef"

// fakeModel starts the kit's fake model server (modelfake) for one test.
func fakeModel(t *testing.T) *modelfake.Server {
	srv := modelfake.Start()
	t.Cleanup(srv.Close)
	return srv
}

// modelsHost starts a host with providers.json pointing at url, config
// selecting local/echo, and the given dev plugins. local/slow, fail and
// leaky are modelfake's models of those names.
func modelsHost(t *testing.T, url string, plugins map[string]map[string]string, opts starhost.Options) (*starhost.Host, *testkit.Log[starhost.Note]) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	providers := fmt.Sprintf(`{"providers": [
  {"name": "local", "protocol": "openai", "endpoint": %q, "api_key_env": "CS_TEST_KEY",
   "models": [{"name": "echo", "max_tokens": 100, "thinking": ["low", "max"], "service_tiers": ["default", "flex"], "speeds": ["fast"], "image_input": true},
              {"name": "plain", "thinking": ["maximum"]}, {"name": "slow"}, {"name": "fail"}, {"name": "leaky"}]},
  {"name": "acme", "protocol": "acme", "endpoint": %q, "api_key_env": "CS_TEST_KEY", "models": [{"name": "a1", "service_tiers": ["flex", "priority"]}]},
  {"name": "claude", "protocol": "anthropic", "endpoint": "https://example.invalid", "models": [{"name": "c1"}]}
]}`, url+"/v1", url)
	testkit.WriteTree(t, home, map[string]string{"providers.json": providers, "config.toml": "model = \"local/echo\"\n"})
	t.Setenv("CS_TEST_KEY", testKey)
	var dev []string
	for name, files := range plugins {
		dir := filepath.Join(t.TempDir(), name)
		testkit.WriteTree(t, dir, files)
		dev = append(dev, dir)
	}
	opts.Home, opts.Workspace, opts.Dev = home, ws, dev
	return hostkit.Start(t, opts)
}

func invoke(t *testing.T, h *starhost.Host, tool, args string) string {
	t.Helper()
	res := h.Session().Thread("").Tools(context.Background(), starhost.PlanAndWork).Invoke(context.Background(), tool, json.RawMessage(args))
	if res.Error != nil {
		return "error " + res.Error.Error()
	}
	return res.Text + string(res.Data)
}

// The openai adapter speaks chat completions over real HTTP: model,
// messages, max_tokens, the effort token forwarded unchanged, the service
// tier and the bearer key.
func TestOpenAIAdapterSpeaksChatCompletions(t *testing.T) {
	srv := fakeModel(t)
	h, _ := modelsHost(t, srv.URL, nil, starhost.Options{})
	if err := h.Session().SetThinking("MAX"); err != nil {
		t.Fatal(err)
	}
	if err := h.Session().SetServiceTier("default"); err != nil {
		t.Fatal(err)
	}
	c, err := starhost.ModelClientForTest(context.Background(), h, "acme.p", starhost.RoleSession)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := c.Complete(context.Background(), starhost.ModelRequest{
		Messages: []starhost.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "hello"}}, MaxTokens: 7, Thinking: "max"})
	// modelfake bills a word a token: "hello" in, the echo's 8 words out.
	if err != nil || reply.Text != "echo echo effort=max tier=default max=7 images=0 msgs=2: hello" || reply.InputTokens != 1 || reply.OutputTokens != 8 {
		t.Fatalf("reply = %+v, %v", reply, err)
	}
	last := srv.Last()
	if last.Path != "/v1/chat/completions" || last.Auth() != "Bearer "+testKey {
		t.Errorf("%s with Authorization %q", last.Path, last.Auth())
	}
	var body map[string]any
	_ = json.Unmarshal(last.Body, &body)
	got, _ := json.Marshal(body)
	want := `{"max_completion_tokens":7,"messages":[{"content":"s","role":"system"},{"content":"hello","role":"user"}],"model":"echo","reasoning_effort":"max","service_tier":"default"}`
	if string(got) != want {
		t.Errorf("body = %s\nwant   %s", got, want)
	}
	// Images go to the images client as image_url parts.
	ic, err := starhost.ModelClientForTest(context.Background(), h, "acme.p", starhost.RoleImages)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ic.Complete(context.Background(), starhost.ModelRequest{Messages: []starhost.Message{{Role: "user", Content: "what"}},
		Images: []string{"data:image/png;base64,AA"}}); err != nil {
		t.Fatal(err)
	}
	body = nil
	_ = json.Unmarshal(srv.Last().Body, &body)
	got, _ = json.Marshal(body["messages"])
	if string(got) != `[{"content":[{"text":"what","type":"text"},{"image_url":{"url":"data:image/png;base64,AA"},"type":"image_url"}],"role":"user"}]` {
		t.Errorf("image message = %s", got)
	}
}

// The adapter reports HTTP errors with the server's message, never the key,
// and honours its context: a stalled server does not hold the caller.
func TestOpenAIAdapterErrorsAndCancellation(t *testing.T) {
	srv := fakeModel(t)
	h, notes := modelsHost(t, srv.URL, nil, starhost.Options{})
	complete := func(ctx context.Context, model string) error {
		t.Helper()
		if err := h.Session().SelectModel(model); err != nil {
			t.Fatal(err)
		}
		c, err := starhost.ModelClientForTest(context.Background(), h, "acme.p", starhost.RoleSession)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Complete(ctx, starhost.ModelRequest{Messages: []starhost.Message{{Role: "user", Content: "x"}}})
		return err
	}
	if err := complete(context.Background(), "local/fail"); err == nil || err.Error() != "unauthorized: local/fail: the provider rejected the API key (HTTP 401: invalid api key)" {
		t.Errorf("401: %v", err)
	}
	// leaky puts the request's Authorization header in its error message.
	if err := complete(context.Background(), "local/leaky"); err == nil || err.Error() != "provider_error: local/leaky: the provider failed (HTTP 500: server saw Bearer [redacted])" {
		t.Errorf("leaky: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := complete(ctx, "local/slow")
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("stalled call: %v after %s", err, time.Since(start))
	}
	if strings.Contains(notes.String(), testKey) {
		t.Errorf("a note shows the key:\n%s", notes)
	}
}

// CC21: providers.json errors carry the path and the JSON line and column.
func TestCC21_ProvidersErrorsArePositioned(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"syntax", "{\n  \"providers\": [\n    {\"name\": \"a\",}\n  ]\n}", `p.json:3:18: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{"unknown key", "{\"providers\": [\n {\"name\": \"a\", \"protocol\": \"openai\", \"endpoint\": \"http://x\",\n  \"apikey\": \"k\", \"models\": []}]}", `p.json:3:3: unknown key "apikey"`},
		{"type", "{\"providers\": [{\"name\": \"a\", \"protocol\": \"openai\", \"endpoint\": \"http://x\",\n \"models\": [{\"name\": \"m\", \"context_window\": \"big\"}]}]}", `p.json:2:45: providers.models.context_window must be int, not a JSON string`},
		{"sentinel listed", "{\"providers\": [{\"name\": \"a\", \"protocol\": \"openai\", \"endpoint\": \"http://x\",\n \"models\": [{\"name\": \"m\",\n  \"thinking\": [\"low\", \"Default\"]}]}]}", `p.json:3:23: thinking token "Default" is a host sentinel; list only the model's effort tokens`},
		{"duplicate effort", "{\"providers\": [{\"name\": \"a\", \"protocol\": \"openai\", \"endpoint\": \"http://x\", \"models\": [{\"name\": \"m\", \"thinking\": [\"max\", \"MAX\"]}]}]}", `p.json:1:121: thinking token "MAX" is listed twice`},
		{"bad protocol", "{\"providers\": [{\"name\": \"a\", \"protocol\": \"my proto\", \"endpoint\": \"http://x\", \"models\": [{\"name\": \"m\"}]}]}", `p.json:1:42: protocol "my proto" has ' ' (U+0020) at character 3; only letters, digits and '_' and '-' are allowed`},
		{"endpoint", "{\"providers\": [{\"name\": \"a\", \"protocol\": \"openai\", \"endpoint\": \"ftp://x\", \"models\": [{\"name\": \"m\"}]}]}", `p.json:1:64: endpoint "ftp://x" must be an http:// or https:// URL without credentials`},
	} {
		_, err := models.ParseProviders("p.json", []byte(tc.src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.name, err, tc.want)
		}
	}
	ps, err := models.ParseProviders("p.json", []byte(`{"providers": [{"name": "a", "protocol": "openai", "endpoint": "http://x", "models": [{"name": "m", "thinking": ["High", "max", "maximum"]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, m, ok := ps.Lookup("a/m"); !ok || strings.Join(m.Thinking, ",") != "high,max,maximum" {
		t.Errorf("thinking stored as %v", m.Thinking)
	}
}

// CC21: thinking is default, off or a listed token, stored lowercase;
// "max" and "maximum" are different tokens; tier and speed are unset
// (None) until chosen, and a listed "default" tier is a tier.
func TestCC21_ThinkingTierSpeedTokens(t *testing.T) {
	srv := fakeModel(t)
	h, _ := modelsHost(t, srv.URL, nil, starhost.Options{})
	s := h.Session().Model()
	if s.Thinking != "default" || s.ServiceTier != "" || s.Speed != "" {
		t.Errorf("initial: %+v", s)
	}
	if err := h.Session().SetThinking("maximum"); err == nil || err.Error() != `thinking "maximum" is not offered by local/echo; choose one of: default, off, low, max [not_offered]` {
		t.Errorf("maximum on echo: %v", err)
	}
	for _, tok := range []string{"OFF", "Max", "default"} {
		if err := h.Session().SetThinking(tok); err != nil || h.Session().Model().Thinking != strings.ToLower(tok) {
			t.Errorf("SetThinking(%s): %v, stored %q", tok, err, h.Session().Model().Thinking)
		}
	}
	if err := h.Session().SetServiceTier("default"); err != nil || h.Session().Model().ServiceTier != "default" || h.Session().Model().Thinking != "default" {
		t.Errorf("tier default: %v %+v", err, h.Session().Model())
	}
	if err := h.Session().SelectModel("local/plain"); err != nil {
		t.Fatal(err)
	}
	if err := h.Session().SetThinking("max"); err == nil {
		t.Errorf("max accepted on a model that lists only maximum")
	}
	if err := h.Session().SetThinking("maximum"); err != nil {
		t.Error(err)
	}
	// Settings are saved per model: back on echo its tier is still there.
	if err := h.Session().SelectModel("local/echo"); err != nil || h.Session().Model().ServiceTier != "default" {
		t.Errorf("echo again: %v %+v", err, h.Session().Model())
	}
}

// CC22, CC27: the review model is independent only once selected; its
// thinking is its own stored effort; switching independence off discards
// the review client, a thinking change rebuilds nothing.
func TestCC22_ReviewIndependenceAndEpochs(t *testing.T) {
	srv := fakeModel(t)
	h, _ := modelsHost(t, srv.URL, nil, starhost.Options{})
	if r := h.Session().Review(); r == nil || r.Independent {
		t.Fatalf("review = %+v; want published, not independent", r)
	}
	if err := h.Session().SetReviewThinking("low"); err == nil {
		t.Errorf("review thinking without an independent review model")
	}
	session, review := starhost.ModelEpochForTest(h, starhost.RoleSession), starhost.ModelEpochForTest(h, starhost.RoleReview)
	if err := h.Session().SelectReviewModel("local/plain"); err != nil {
		t.Fatal(err)
	}
	if err := h.Session().SetReviewThinking("maximum"); err != nil {
		t.Fatal(err)
	}
	r := h.Session().Review()
	if !r.Independent || r.Model.Model != "plain" || r.Model.Thinking != "maximum" || h.Session().Model().Thinking != "default" {
		t.Errorf("review = %+v, session thinking %s", r, h.Session().Model().Thinking)
	}
	if starhost.ModelEpochForTest(h, starhost.RoleSession) != session || starhost.ModelEpochForTest(h, starhost.RoleReview) == review {
		t.Errorf("selecting a review model must rebuild review only")
	}
	review = starhost.ModelEpochForTest(h, starhost.RoleReview)
	if err := h.Session().SetThinking("low"); err != nil || starhost.ModelEpochForTest(h, starhost.RoleSession) != session {
		t.Errorf("a thinking change rebuilt the session client (%v)", err)
	}
	if err := h.Session().SetServiceTier("flex"); err != nil || starhost.ModelEpochForTest(h, starhost.RoleSession) == session {
		t.Errorf("a tier change must rebuild the session client (%v)", err)
	}
	if err := h.Session().SelectReviewModel("off"); err != nil || h.Session().Review().Independent || starhost.ModelEpochForTest(h, starhost.RoleReview) == review {
		t.Errorf("independence off: %v %+v", err, h.Session().Review())
	}
	if _, err := starhost.ModelClientForTest(context.Background(), h, "p", starhost.RoleReview); err == nil {
		t.Errorf("a review client without independence")
	}
}

const acmeFactory = `
def encode(req, key):
    return {
        "path": "/acme/complete",
        "headers": {"Authorization": ["Bearer ", key]},
        "body": {"q": req.messages[-1]["content"], "model": MODEL[0] if MODEL else ""},
    }

MODEL = []

def decode(resp):
    if resp.status != 200:
        return error("acme_http", "status %d" % resp.status)
    return {"text": resp.json["answer"], "output_tokens": 1}

def create(req):
    if req.service_tier == "priority":
        return error("not_supported", "acme has no priority tier")
    return struct(encode = lambda r: encode(r, req.api_key), decode = decode)

def ask(ctx, args):
    return ctx.models.session.complete(args["q"])

contribute(
    client_factories = [client_factory(protocol = "acme", create = create)],
    tools = [tool(name = "ask", catalogs = "work", run = ask)],
)
`

// CC8, CC9, CC24: a plugin's client factory serves its protocol over the
// host's HTTP; not_supported shows when the client is built — on first
// connect and after /tier; model calls are reported apart from notes; the
// API key appears in no note, report or result.
func TestCC9_FactoryEndToEndAndTheKeyStaysHidden(t *testing.T) {
	srv := fakeModel(t)
	srv.Handle("/acme/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Q string }
		_ = json.NewDecoder(r.Body).Decode(&body)
		fmt.Fprintf(w, `{"answer": "acme: %s"}`, body.Q)
	}))
	var calls []starhost.ModelCall
	var mu sync.Mutex
	h, notes := modelsHost(t, srv.URL, map[string]map[string]string{"acme": {
		"plugin.toml": "id = \"acme.factory\"\nversion = \"1.0.0\"\ncapabilities = [\"models\"]\n",
		"plugin.star": acmeFactory,
	}}, starhost.Options{ModelCalls: func(c starhost.ModelCall) { mu.Lock(); calls = append(calls, c); mu.Unlock() }})
	if err := h.Session().SelectModel("acme/a1"); err != nil {
		t.Fatal(err)
	}
	if got := invoke(t, h, "ask", `{"q": "hi"}`); got != "acme: hi" {
		t.Fatalf("ask = %s\nnotes:\n%s", got, notes)
	}
	if last := srv.Last(); last.Auth() != "Bearer "+testKey || last.Path != "/acme/complete" {
		t.Errorf("the server got %q at %s", last.Auth(), last.Path)
	}
	if err := h.Session().SetServiceTier("priority"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(notes.String(), "the session client for acme/a1 cannot be built: plugin acme.factory: not_supported: acme has no priority tier [ModelClientFailed]") {
		t.Errorf("not_supported after /tier is not surfaced:\n%s", notes)
	}
	if got := invoke(t, h, "ask", `{"q": "again"}`); got != "error tool_failed: uncaught error at plugin.star:22:22" {
		t.Errorf("ask with priority = %s", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || calls[0].Plugin != "acme.factory" || calls[0].Role != starhost.RoleSession || calls[0].Model != "a1" || calls[0].OutputTokens != 1 {
		t.Errorf("model calls = %+v", calls)
	}
	everything := notes.String() + fmt.Sprint(calls)
	if strings.Contains(everything, testKey) {
		t.Errorf("the API key appears in output:\n%s", everything)
	}
}

// CC10: the host's classification answers first; plugin classifiers are
// asked only for names it does not know and never for built-in tools.
func TestCC10_ClassifyAsksPluginsOnlyOnAMiss(t *testing.T) {
	src := `
def classify(ctx, tool, args):
    print("asked about " + tool)
    if tool == "deploy":
        return {"risk": "high", "permission": "deny" if args.get("prod") else "ask"}
    return None

contribute(classifiers = [classifier(classify = classify)])
`
	h, notes := modelsHost(t, "http://127.0.0.1:9", map[string]map[string]string{"c": {
		"plugin.toml": "id = \"acme.classify\"\nversion = \"1.0.0\"\n", "plugin.star": src,
	}}, starhost.Options{BuiltinTools: []string{"read", "bash"},
		Classifications: map[string]starhost.Classification{"read": {Risk: "low", Permission: "allow"}}})
	ctx := context.Background()
	for _, tc := range []struct{ tool, args, want string }{
		{"read", `{}`, "risk=low permission=allow (builtin)"},
		{"bash", `{}`, "built-in tool without a built-in classification; classifiers are not asked"},
		{"deploy", `{"prod": true}`, "risk=high permission=deny (plugin acme.classify)"},
		{"deploy", ``, "risk=high permission=ask (plugin acme.classify)"},
		{"other", `{}`, "unknown: no classifier answered"},
	} {
		got, err := h.Session().Classify(ctx, tc.tool, json.RawMessage(tc.args))
		if err != nil || got.String() != tc.want {
			t.Errorf("%s %s = %s, %v; want %s", tc.tool, tc.args, got, err, tc.want)
		}
	}
	if n := notes.String(); strings.Contains(n, "asked about read") || strings.Contains(n, "asked about bash") {
		t.Errorf("a classifier was asked about a built-in tool:\n%s", n)
	}
	if _, err := h.Session().Classify(ctx, "deploy", json.RawMessage(`{`)); err == nil {
		t.Errorf("invalid JSON accepted")
	}
}

// CC29: the host creates both data directories under the plugin's
// directory name, and attach_data_dirs gets them.
func TestCC29_HostCreatesDataDirs(t *testing.T) {
	src := `
def attach_data_dirs(ctx, g, p):
    g.write("hello.txt", "from " + ctx.plugin)

contribute(attach_data_dirs = attach_data_dirs)
`
	h, notes := modelsHost(t, "http://127.0.0.1:9", map[string]map[string]string{"keeper": {
		"plugin.toml": "id = \"acme.keeper\"\nversion = \"1.0.0\"\ncapabilities = [\"data\"]\n", "plugin.star": src,
	}}, starhost.Options{})
	global, project := starhost.DataDirsOf(h, "acme.keeper", "keeper")
	data, err := os.ReadFile(filepath.Join(global, "hello.txt"))
	if err != nil || string(data) != "from acme.keeper" {
		t.Errorf("global: %q, %v\n%s", data, err, notes)
	}
	if info, err := os.Stat(project); err != nil || !info.IsDir() || !strings.HasSuffix(project, filepath.Join(".crystal", "data", "plugins", "keeper")) {
		t.Errorf("project dir %s: %v", project, err)
	}
	var _ contrib.Code = contrib.ModelAccess
}

// CC24: a plugin tool blocked in a real HTTP model call returns as soon as
// the caller's context ends, and Options.ModelTimeout bounds a call on its
// own.
func TestCC24_ToolBlockedInHTTPHonoursCancellation(t *testing.T) {
	srv := fakeModel(t) // its model "slow" answers only when the call is cancelled
	h, notes := modelsHost(t, srv.URL, map[string]map[string]string{"slow": {
		"plugin.toml": "id = \"acme.slow\"\nversion = \"1.0.0\"\ncapabilities = [\"models\"]\n",
		"plugin.star": "contribute(tools = [tool(name = \"wait\", catalogs = \"work\", run = lambda ctx, args: ctx.models.session.complete(\"hang\"))])\n",
	}}, starhost.Options{ModelTimeout: 30 * time.Second})
	if err := h.Session().SelectModel("local/slow"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	res := h.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(ctx, "wait", json.RawMessage(`{}`))
	if res.Error == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("res = %+v after %s", res, time.Since(start))
	}
	if !strings.Contains(notes.String(), "complete: cancelled: local/slow: the call was cancelled") {
		t.Errorf("notes:\n%s", notes)
	}

	h2, _ := modelsHost(t, srv.URL, map[string]map[string]string{"slow": {
		"plugin.toml": "id = \"acme.slow\"\nversion = \"1.0.0\"\ncapabilities = [\"models\"]\n",
		"plugin.star": "contribute(tools = [tool(name = \"wait\", catalogs = \"work\", run = lambda ctx, args: ctx.models.session.complete(\"hang\"))])\n",
	}}, starhost.Options{ModelTimeout: 100 * time.Millisecond})
	if err := h2.Session().SelectModel("local/slow"); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if res := h2.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(context.Background(), "wait", json.RawMessage(`{}`)); res.Error == nil || time.Since(start) > 5*time.Second {
		t.Errorf("with ModelTimeout: %+v after %s", res, time.Since(start))
	}
}

// TestSessionClientServesTheEmbeddersTurns: an embedder that relies on
// providers.json gets the session model's client from the host, its API key
// kept in the host, and its calls are not reported as plugins' calls.
func TestSessionClientServesTheEmbeddersTurns(t *testing.T) {
	srv := fakeModel(t)
	var reported testkit.Log[starhost.ModelCall]
	h, _ := modelsHost(t, srv.URL, nil, starhost.Options{ModelCalls: reported.Add})
	c, err := h.Session().Client(context.Background(), starhost.RoleSession)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := c.Complete(context.Background(), starhost.ModelRequest{Messages: []starhost.Message{{Role: "user", Content: "hi there"}}})
	if err != nil || !strings.HasSuffix(reply.Text, ": hi there") {
		t.Fatalf("Complete = %+v, %v; want the echo of the session model", reply, err)
	}
	if auth := srv.Last().Auth(); auth != "Bearer "+testKey {
		t.Errorf("the request carried %q; want the provider's key", auth)
	}
	if reported.Len() != 0 {
		t.Errorf("the embedder's own call was reported as a plugin's: %v", reported.All())
	}
	if _, err := h.Session().Client(context.Background(), starhost.RoleReview); !errors.Is(err, starhost.ErrNoModel) {
		t.Errorf("a review client while review follows the session model: %v; want no_model", err)
	}
}
