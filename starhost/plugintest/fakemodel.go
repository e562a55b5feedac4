package plugintest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/crystal-star/crystal-star/internal/layout"
	_ "github.com/crystal-star/crystal-star/starhost/models/builtin" // hosts under test speak all six protocols to FakeModel
	"github.com/crystal-star/crystal-star/starhost/models/modelfake"
)

// FakeModel is a local model server on 127.0.0.1 for plugin tests, in the
// style of httptest.Server. It speaks the wire formats of all six built-in
// protocols (modelfake): OpenAI chat completions under {URL}/v1, and the
// others under the paths Endpoint names. It answers each request with the
// next scripted reply, or, without replies, echoes what it understood
// ("echo MODEL effort=… tier=… max=… images=… msgs=…: TEXT"). It records
// every request it gets. Some model names misbehave on purpose ("slow",
// "fail", "leaky", "busy", "down", … — see modelfake). A toy protocol under
// /acme/ ({"q", "model"} → {"answer"}) serves client factory tests. It is
// safe for concurrent use.
type FakeModel struct {
	// URL is the server's base URL, such as http://127.0.0.1:40123.
	URL string

	srv     *modelfake.Server
	mu      sync.Mutex
	logPath string
}

// Request is one request the fake model got.
type Request struct {
	Method string
	Path   string // with the query
	Auth   string // the credential header: Authorization, x-api-key or x-goog-api-key
	Body   string
}

// String is the request as one log line: METHOD PATH auth="..." BODY.
func (r Request) String() string {
	return fmt.Sprintf("%s %s auth=%q %s", r.Method, r.Path, r.Auth, r.Body)
}

// The provider and model a FakeModel's configuration selects (WriteConfig).
const (
	FakeProvider = "fake"
	FakeModelID  = "fake"
)

// NewFakeModel starts a fake model server that answers requests with
// replies, in order; once they are used up it answers 500 with a message
// saying so. Without replies it echoes. Close it when done.
func NewFakeModel(replies ...string) *FakeModel {
	m := &FakeModel{srv: modelfake.Start()}
	m.URL = m.srv.URL
	if len(replies) > 0 {
		m.srv.Script(replies...)
	}
	m.srv.Handle("/acme/", http.HandlerFunc(fakeAcme))
	m.srv.OnRequest(func(r modelfake.Request) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.logPath == "" {
			return
		}
		if f, err := os.OpenFile(m.logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, request(r))
			f.Close()
		}
	})
	return m
}

func request(r modelfake.Request) Request {
	return Request{Method: r.Method, Path: r.Path, Auth: r.Auth(), Body: string(r.Body)}
}

// Endpoint returns the providers.json endpoint of protocol (openai,
// responses, deepseek, anthropic, gemini, ollama) on this server, or "".
func (m *FakeModel) Endpoint(protocol string) string { return m.srv.Endpoint(protocol) }

// LogTo appends each later request to the file at path, one line each
// (Request.String).
func (m *FakeModel) LogTo(path string) {
	m.mu.Lock()
	m.logPath = path
	m.mu.Unlock()
}

// Requests returns the requests received so far, in order.
func (m *FakeModel) Requests() []Request {
	var out []Request
	for _, r := range m.srv.Requests() {
		out = append(out, request(r))
	}
	return out
}

// Close shuts the server down, cancelling requests in flight.
func (m *FakeModel) Close() { m.srv.Close() }

// providers is a providers.json naming this server as provider "fake"
// (protocol openai) with one model, "fake".
func (m *FakeModel) providers() map[string]any {
	return map[string]any{"providers": []any{map[string]any{"name": FakeProvider, "protocol": "openai",
		"endpoint": m.srv.Endpoint("openai"), "models": []any{map[string]any{"name": FakeModelID, "context_window": 8192}}}}}
}

// WriteConfig points a home directory at the server: it writes
// {home}/providers.json and sets model = "fake/fake" in {home}/config.toml,
// keeping the file's other settings.
func (m *FakeModel) WriteConfig(home string) error {
	data, err := json.MarshalIndent(m.providers(), "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(layout.Paths{Home: home}.Providers(), append(data, '\n'), 0o644); err != nil {
		return err
	}
	cfg := layout.Paths{Home: home}.Config(false)
	old, err := os.ReadFile(cfg)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	// Top-level keys must precede the first [table]: the setting goes first
	// and an earlier top-level model line is dropped.
	out := []string{fmt.Sprintf("model = %q", FakeProvider+"/"+FakeModelID)}
	inTable := false
	for _, line := range strings.Split(strings.TrimRight(string(old), "\n"), "\n") {
		t := strings.TrimSpace(line)
		inTable = inTable || strings.HasPrefix(t, "[")
		if !inTable && (strings.HasPrefix(t, "model ") || strings.HasPrefix(t, "model=")) {
			continue
		}
		out = append(out, line)
	}
	return os.WriteFile(cfg, []byte(strings.Join(out, "\n")+"\n"), 0o644)
}

// fakeAcme is the toy protocol of client-factory tests: it takes
// {"q": text, "model": name} and answers {"answer": ...}.
func fakeAcme(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Q     string `json:"q"`
		Model string `json:"model"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Acme", "yes")
	_ = json.NewEncoder(w).Encode(map[string]any{"answer": "acme " + req.Model + " says: " + req.Q, "used": 7})
}

// ParseReplies splits a replies file into replies: they are separated by
// lines holding only "---"; surrounding blank lines are trimmed.
func ParseReplies(data string) []string {
	var out []string
	var cur []string
	flush := func() {
		if r := strings.TrimSpace(strings.Join(cur, "\n")); r != "" {
			out = append(out, r)
		}
		cur = nil
	}
	for _, line := range strings.Split(data, "\n") {
		if strings.TrimSpace(line) == "---" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return out
}
