// Package modelfake is a local model server that speaks the wire formats
// of all six built-in protocols at once, for tests of adapters, plugins
// and the CLI. It answers every model with an echo of what it understood
// — the same line in every protocol — and a few model names with the
// failures a real provider produces, each in that protocol's error shape.
//
// Routes (the provider's endpoint in providers.json is URL + the prefix):
//
//	openai     POST {URL}/v1/chat/completions                     endpoint {URL}/v1
//	responses  POST {URL}/v1/responses                            endpoint {URL}/v1
//	deepseek   POST {URL}/deepseek/chat/completions               endpoint {URL}/deepseek
//	anthropic  POST {URL}/anthropic/v1/messages (SSE when stream) endpoint {URL}/anthropic
//	gemini     POST {URL}/gemini/v1beta/models/M:generateContent  endpoint {URL}/gemini
//	           (and M:streamGenerateContent, one server-sent event)
//	ollama     POST {URL}/ollama/api/chat                         endpoint {URL}/ollama
//
// The echo is "echo MODEL effort=E tier=T max=N images=I msgs=M: TEXT":
// E is the thinking the request carried in the protocol's own form (- for
// none), T the service tier, N the max tokens, I the images of the last
// message, M the messages (system included where the protocol puts it among
// them), TEXT the last message's text.
//
// Models with special behaviour: "slow" answers only when the request is
// cancelled (or after 30s); "fail" answers 401, "forbidden" 403,
// "missing" 404, "busy" 429 with retry-after 0 every time, "busy-once" 429
// once then the echo, "down" 503, "stream-error" an overloaded_error event
// inside a started stream (anthropic; 503 elsewhere), "leaky" 500 with the request's key in the
// message; "garbled" a 200 that is not the protocol's JSON; "refuse" the
// protocol's refusal (ollama has none and echoes).
//
// Script replaces the echo with replies in order; ScriptReplies does too,
// and its replies may ask for tool calls (openai, deepseek, anthropic and
// gemini speak them; the other protocols answer 500 saying so). Respond
// picks each reply from the request instead.
package modelfake

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Request is one request the server received.
type Request struct {
	Protocol string
	Method   string
	Path     string // with the query
	Header   http.Header
	Body     []byte
}

// Auth returns the request's credential header as sent: Authorization,
// x-api-key or x-goog-api-key, whichever is set.
func (r Request) Auth() string {
	for _, h := range []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key"} {
		if v := r.Header.Get(h); v != "" {
			return v
		}
	}
	return ""
}

// Server is the fake provider. Its zero value is not usable; call Start.
//
// It is a plain http.Server on 127.0.0.1, not an httptest.Server: the CLI
// links this package (`crystal-star test`'s fake model), and httptest
// would bring its test certificate and flags into every build of the CLI.
type Server struct {
	// URL is the server's base URL, such as http://127.0.0.1:40123.
	URL string
	// Key, when set, is the only API key accepted: any other answers 401.
	Key      string
	srv      *http.Server
	listener net.Listener
	active   sync.WaitGroup // requests being served
	mu       sync.Mutex
	closed   bool // Close was called: no request is served
	requests []Request
	seen     map[string]int // model → requests so far (busy-once)
	extra    map[string]http.Handler
	observe  func(Request)
	script   []Reply // scripted replies, in order (Script, ScriptReplies)
	respond  func(Request) (Reply, bool)
	answered int // scripted replies used
}

// Script makes the server answer successful requests with replies, in
// order, instead of the echo; once they are used up it answers 500 saying
// so (a test that makes more model calls than it scripted fails loudly).
// The failing models keep failing. Safe for concurrent use.
func (s *Server) Script(replies ...string) {
	rs := make([]Reply, len(replies))
	for i, r := range replies {
		rs[i] = Reply{Text: r}
	}
	s.ScriptReplies(rs...)
}

// Reply is one scripted answer: Text, and the tool calls the model asks
// for (then Text goes along with them, as a model's preamble may).
type Reply struct {
	Text      string
	ToolCalls []ToolCall
}

// ToolCall is a tool call a scripted reply asks for. Arguments is the
// JSON object of the arguments ("" sends {}).
type ToolCall struct {
	ID, Name, Arguments string
}

// ScriptReplies is Script with replies that may ask for tool calls, in
// the protocol's own shape: chat completions' message.tool_calls
// (finish_reason "tool_calls"), anthropic's tool_use blocks (stop_reason
// "tool_use", streamed too). Safe for concurrent use.
func (s *Server) ScriptReplies(replies ...Reply) {
	s.mu.Lock()
	s.script, s.answered = replies, 0
	s.mu.Unlock()
}

// Respond makes f choose the reply of each successful request from the
// request itself, ahead of Script: an agent host that makes requests of
// its own (titles, summaries) besides its turns cannot be scripted in
// order. f returning false falls back to the script or the echo. Safe for
// concurrent use; f is called from the server's goroutines.
func (s *Server) Respond(f func(Request) (Reply, bool)) {
	s.mu.Lock()
	s.respond = f
	s.mu.Unlock()
}

// OnRequest makes f see every request before it is answered (the
// testscript command logs them); nil stops it. Safe for concurrent use.
func (s *Server) OnRequest(f func(Request)) {
	s.mu.Lock()
	s.observe = f
	s.mu.Unlock()
}

// prefixes are where each protocol's endpoint lives on the server.
var prefixes = map[string]string{"openai": "/v1", "responses": "/v1", "deepseek": "/deepseek",
	"anthropic": "/anthropic", "gemini": "/gemini", "ollama": "/ollama"}

// Endpoint returns the providers.json endpoint of protocol on this server
// ("" for a protocol it does not speak).
func (s *Server) Endpoint(protocol string) string {
	p, ok := prefixes[protocol]
	if !ok {
		return ""
	}
	return s.URL + p
}

// Handle serves paths under prefix with h instead (a toy protocol of a
// plugin's client factory, say). Safe for concurrent use.
func (s *Server) Handle(prefix string, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.extra[prefix] = h
}

// Start starts a server on a free port of 127.0.0.1; Close stops it. It
// panics when it cannot listen, as httptest.NewServer does.
func Start() *Server {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("modelfake: cannot listen on 127.0.0.1: " + err.Error())
	}
	s := &Server{URL: "http://" + l.Addr().String(), listener: l, seen: map[string]int{}, extra: map[string]http.Handler{}}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(l)
	return s
}

// Close stops the server: it closes the listener and every connection,
// which cancels the requests in flight, and waits until their handlers
// have returned. It is idempotent.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	// Closed here too: Serve may not have taken the listener over yet,
	// and a connection it never accepts would be reset, not refused.
	s.listener.Close()
	s.srv.Close()
	s.active.Wait()
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Last returns the last request received (zero before any).
func (s *Server) Last() Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return Request{}
	}
	return s.requests[len(s.requests)-1]
}

// route finds the protocol of a path.
func route(path string) (wire, bool) {
	switch {
	case strings.HasPrefix(path, "/deepseek/") && strings.HasSuffix(path, "/chat/completions"):
		return deepseekWire{}, true
	case strings.HasSuffix(path, "/chat/completions"):
		return openaiWire{}, true
	case strings.HasSuffix(path, "/responses"):
		return responsesWire{}, true
	case strings.HasSuffix(path, "/v1/messages"):
		return anthropicWire{}, true
	case strings.HasSuffix(path, ":generateContent"), strings.HasSuffix(path, ":streamGenerateContent"):
		return geminiWire{}, true
	case strings.HasSuffix(path, "/api/chat"):
		return ollamaWire{}, true
	}
	return nil, false
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	// Counted under mu, before Close marks the server closed, so Close's
	// Wait sees every handler that runs.
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "modelfake: the server is closed", http.StatusServiceUnavailable)
		return
	}
	s.active.Add(1)
	s.mu.Unlock()
	defer s.active.Done()
	body, _ := io.ReadAll(r.Body)
	wr, ok := route(r.URL.Path)
	req := Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body}
	if ok {
		req.Protocol = wr.name()
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	observe := s.observe
	s.mu.Unlock()
	if observe != nil {
		observe(req)
	}
	if h := s.handler(r.URL.Path); h != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
		return
	}
	if !ok || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	c, err := wr.parse(r, body)
	if err != nil {
		wr.fail(w, http.StatusBadRequest, "bad request: "+err.Error())
		return
	}
	if problem := wr.authProblem(r, s.Key); problem != "" {
		wr.fail(w, http.StatusUnauthorized, problem)
		return
	}
	s.answer(w, r, wr, c, req)
}

// handler returns the extra handler of path, if any.
func (s *Server) handler(path string) http.Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	for prefix, h := range s.extra {
		if strings.HasPrefix(path, prefix) {
			return h
		}
	}
	return nil
}

// answer replies for the model c names: a failure or the echo.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, wr wire, c call, req Request) {
	s.mu.Lock()
	s.seen[c.model]++
	n := s.seen[c.model]
	s.mu.Unlock()
	if f, ok := failures[c.model]; ok && !(c.model == "stream-error" && c.stream) {
		wr.fail(w, f.status, f.msg)
		return
	}
	switch c.model {
	case "slow":
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		return
	case "busy", "busy-once":
		if c.model == "busy" || n == 1 {
			w.Header().Set("Retry-After", "0")
			wr.fail(w, http.StatusTooManyRequests, "slow down")
			return
		}
	case "leaky":
		wr.fail(w, http.StatusInternalServerError, "server saw "+strings.ReplaceAll(req.Auth(), `"`, ""))
		return
	case "garbled":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"this is": not json`)
		return
	}
	reply := Reply{Text: fmt.Sprintf("echo %s effort=%s tier=%s max=%d images=%d msgs=%d: %s", c.model, dash(c.effort),
		dash(c.tier), c.max, c.images, c.msgs, c.text)}
	s.mu.Lock()
	respond := s.respond
	s.mu.Unlock()
	if respond != nil {
		if r, ok := respond(req); ok {
			s.send(w, wr, c, r)
			return
		}
	}
	s.mu.Lock()
	scripted, left := len(s.script) > 0, s.answered < len(s.script)
	if left {
		reply = s.script[s.answered]
		s.answered++
	}
	given := len(s.script)
	s.mu.Unlock()
	if scripted && !left {
		wr.fail(w, http.StatusInternalServerError, fmt.Sprintf("fakemodel: no scripted reply left (%d given)", given))
		return
	}
	s.send(w, wr, c, reply)
}

// send writes one reply, with its tool calls where the protocol speaks them.
func (s *Server) send(w http.ResponseWriter, wr wire, c call, reply Reply) {
	if len(reply.ToolCalls) > 0 {
		tw, ok := wr.(toolWire)
		if !ok {
			wr.fail(w, http.StatusInternalServerError, "fakemodel: scripted tool calls are not spoken on "+wr.name())
			return
		}
		tw.replyTools(w, c, reply)
		return
	}
	wr.reply(w, c, reply.Text, c.model == "refuse")
}

// failures are the models that always fail, with their HTTP status and
// the provider's message (the same in every protocol's error shape).
var failures = map[string]struct {
	status int
	msg    string
}{
	"fail":      {http.StatusUnauthorized, "invalid api key"},
	"forbidden": {http.StatusForbidden, "this key may not use the model"},
	"missing":   {http.StatusNotFound, "model missing does not exist"},
	"down":      {http.StatusServiceUnavailable, "overloaded"},
	// stream-error fails inside a started stream where the protocol
	// streams (anthropic), else as down.
	"stream-error": {http.StatusServiceUnavailable, "overloaded"},
}

// call is what the server understood of a request, in every protocol.
type call struct {
	model, text, effort, tier string
	max, images, msgs         int
	stream                    bool
}

// wire is one protocol's request and answer shapes.
type wire interface {
	name() string
	parse(r *http.Request, body []byte) (call, error)
	authProblem(r *http.Request, key string) string
	fail(w http.ResponseWriter, status int, msg string)
	reply(w http.ResponseWriter, c call, text string, refuse bool)
}

// toolWire is a protocol whose scripted replies may ask for tool calls.
type toolWire interface {
	replyTools(w http.ResponseWriter, c call, r Reply)
}

// arguments is a tool call's arguments, {} when none are given.
func (t ToolCall) arguments() string {
	if t.Arguments == "" {
		return "{}"
	}
	return t.Arguments
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// bearerProblem checks Authorization: Bearer KEY.
func bearerProblem(r *http.Request, key string) string {
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		return "invalid api key"
	}
	return ""
}

// words counts tokens the way the fake bills them.
func words(s string) int { return len(strings.Fields(s)) }
