package plugintest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/crystal-star/crystal-star/starhost"
)

// FakeModel is a local model server on 127.0.0.1 for plugin tests, in the
// style of httptest.Server. It speaks OpenAI chat completions under
// {URL}/v1/chat/completions and answers each request with the next scripted
// reply, or, without replies, echoes the last user message. It records every
// request it gets. Three model names misbehave on purpose: "slow" answers
// only when the request is cancelled (or after 30s), "fail" answers 401 and
// "leaky" answers 500 with the request's auth header in the body. A toy
// protocol under /acme/ ({"q", "model"} → {"answer"}) serves the client
// factory scenarios. It is safe for concurrent use.
type FakeModel struct {
	// URL is the server's base URL, such as http://127.0.0.1:40123.
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	replies  []string
	next     int
	requests []Request
	logPath  string
}

// Request is one request the fake model got.
type Request struct {
	Method string
	Path   string // with the query
	Auth   string // the Authorization or x-api-key header
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
	m := &FakeModel{replies: replies}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	m.URL = m.srv.URL
	return m
}

// LogTo appends each later request to the file at path, one line each
// (Request.String).
func (m *FakeModel) LogTo(path string) {
	m.mu.Lock()
	m.logPath = path
	m.mu.Unlock()
}

// Requests returns the requests received so far, in order.
func (m *FakeModel) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Request(nil), m.requests...)
}

// Close shuts the server down, cancelling requests in flight.
func (m *FakeModel) Close() {
	m.srv.CloseClientConnections()
	m.srv.Close()
}

// Providers returns a providers.json naming this server as provider
// "fake" (protocol openai) with one model, "fake".
func (m *FakeModel) Providers() starhost.Providers {
	return starhost.Providers{Providers: []starhost.Provider{{Name: FakeProvider, Protocol: "openai",
		Endpoint: m.URL + "/v1", Models: []starhost.ProviderModel{{Name: FakeModelID, ContextWindow: 8192}}}}}
}

// WriteConfig points a home directory at the server: it writes
// {home}/providers.json and sets model = "fake/fake" in {home}/config.toml,
// keeping the file's other settings.
func (m *FakeModel) WriteConfig(home string) error {
	data, err := json.MarshalIndent(m.Providers(), "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(home, starhost.ProvidersFile), append(data, '\n'), 0o644); err != nil {
		return err
	}
	cfg := filepath.Join(home, "config.toml")
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

func (m *FakeModel) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.RequestURI(), Auth: r.Header.Get("Authorization") + r.Header.Get("X-Api-Key"), Body: string(body)}
	m.mu.Lock()
	m.requests = append(m.requests, req)
	n := len(m.requests)
	if m.logPath != "" {
		if f, err := os.OpenFile(m.logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, req)
			f.Close()
		}
	}
	m.mu.Unlock()
	if strings.HasPrefix(r.URL.Path, "/acme/") {
		fakeAcme(w, body)
		return
	}
	m.chat(w, r, body, req.Auth, n)
}

// chatRequest is the part of an OpenAI chat-completions request the fake
// reads.
type chatRequest struct {
	Model           string `json:"model"`
	ReasoningEffort string `json:"reasoning_effort"`
	ServiceTier     string `json:"service_tier"`
	MaxTokens       int    `json:"max_tokens"`
	Messages        []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (m *FakeModel) chat(w http.ResponseWriter, r *http.Request, body []byte, auth string, n int) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	switch req.Model {
	case "slow":
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		return
	case "fail":
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"invalid api key"}}`)
		return
	case "leaky":
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error":{"message":"server saw %s"}}`, strings.ReplaceAll(auth, `"`, ""))
		return
	}
	text, images := lastMessage(req)
	var reply string
	m.mu.Lock()
	scripted, left := len(m.replies) > 0, m.next < len(m.replies)
	if left {
		reply = m.replies[m.next]
		m.next++
	}
	m.mu.Unlock()
	switch {
	case scripted && !left:
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error":{"message":"fakemodel: request %d has no scripted reply left (%d given)"}}`, n, len(m.replies))
		return
	case !scripted:
		reply = fmt.Sprintf("echo %s effort=%s tier=%s max=%d images=%d msgs=%d: %s", req.Model, dash(req.ReasoningEffort),
			dash(req.ServiceTier), req.MaxTokens, images, len(req.Messages), text)
	}
	out := map[string]any{
		"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": len(strings.Fields(text)), "completion_tokens": len(strings.Fields(reply))},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// lastMessage returns the text of the last message and its image count.
func lastMessage(req chatRequest) (text string, images int) {
	last := req.Messages[len(req.Messages)-1]
	if json.Unmarshal(last.Content, &text) == nil {
		return text, 0
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(last.Content, &parts)
	for _, p := range parts {
		if p.Type == "text" {
			text += p.Text
		} else {
			images++
		}
	}
	return text, images
}

// fakeAcme is the toy protocol of client-factory tests: it takes
// {"q": text, "model": name} and answers {"answer": ...}.
func fakeAcme(w http.ResponseWriter, body []byte) {
	var req struct {
		Q     string `json:"q"`
		Model string `json:"model"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Acme", "yes")
	_ = json.NewEncoder(w).Encode(map[string]any{"answer": "acme " + req.Model + " says: " + req.Q, "used": 7})
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
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
