package mcpserve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

// samplingServer serves the sampling plugin (its tool ask samples the
// client's model) with the MCP client's model as the session model.
func samplingServer(t *testing.T) *mcpserve.Server {
	t.Helper()
	dir := t.TempDir()
	plugin := filepath.Join(dir, "dev", "s")
	testkit.WriteFile(t, filepath.Join(plugin, "plugin.toml"), "id = \"acme.s\"\nversion = \"1.0.0\"\ncapabilities = [\"models\"]\n")
	testkit.WriteFile(t, filepath.Join(plugin, "plugin.star"), samplingPlugin)
	h, _ := watchedHost(t, starhost.Options{Home: filepath.Join(dir, "home"), Workspace: dir, Dev: []string{plugin},
		Models: mcpserve.SamplingModels()})
	srv := mcpserve.New(h, mcpserve.Options{Session: starhost.SessionOptions{Model: &mcpserve.SamplingFacts}})
	t.Cleanup(srv.Close)
	return srv
}

// stdioPeer is a client speaking raw JSON-RPC lines to ServeStdio.
type stdioPeer struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startStdio(t *testing.T, ctx context.Context, srv *mcpserve.Server) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{in: inW, lines: make(chan string, 64), done: make(chan error, 1)}
	go func() {
		err := srv.ServeStdio(ctx, inR, outW)
		outW.Close()
		p.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return p
}

func (p *stdioPeer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// next returns the next line the server writes that contains part,
// failing when the server ends first (the deadline only bounds a hang).
func (p *stdioPeer) next(t *testing.T, part string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("the server ended without writing %s", part)
			}
			if strings.Contains(line, part) {
				return line
			}
		case <-timeout:
			t.Fatalf("no line with %s", part)
		}
	}
}

// rest returns every line written until the server's output ends.
func (p *stdioPeer) rest(t *testing.T) []string {
	t.Helper()
	var out []string
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				return out
			}
			out = append(out, line)
		case <-timeout:
			t.Fatalf("the server did not end; wrote %q", out)
		}
	}
}

// initSampling initializes as a client with the sampling capability and
// calls ask (id 2), which then waits for the client's sampling answer: it
// returns once the sampling request was written.
func initSampling(t *testing.T, p *stdioPeer) {
	t.Helper()
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	p.next(t, `"id":1,"result"`)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"q":"x"}}}`)
	p.next(t, `"method":"sampling/createMessage"`)
}

// TestH24_8_EndOfInputFailsSampling: at the end of input a tool waiting for
// the client's sampling answer fails at once (no answer can come), its call
// is answered, and ServeStdio returns.
func TestH24_8_EndOfInputFailsSampling(t *testing.T) {
	p := startStdio(t, context.Background(), samplingServer(t))
	initSampling(t, p)
	p.in.Close()
	answer := p.next(t, `"id":2,`)
	if !strings.Contains(answer, `"isError":true`) || !strings.Contains(answer, "tool_failed") {
		t.Errorf("ask after the end of input = %s; want a tool_failed result", answer)
	}
	p.rest(t)
	if err := <-p.done; err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}

// TestH24_8_ShutdownCancelsSampling: when ServeStdio's context ends (the
// CLI's SIGTERM) with a tool waiting for sampling and the input still
// open, the tool is cancelled after the grace, its call is answered with an
// error, and ServeStdio returns within the shutdown deadline.
func TestH24_8_ShutdownCancelsSampling(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := startStdio(t, ctx, samplingServer(t))
	initSampling(t, p)
	cancel()
	answer := p.next(t, `"id":2,`)
	if !strings.Contains(answer, `"isError":true`) {
		t.Errorf("ask at shutdown = %s; want an error result", answer)
	}
	if err := <-p.done; err != nil {
		t.Errorf("ServeStdio = %v", err)
	}
}

// TestH24_8_CancelledRequestIsNotAnswered: a request the client cancelled
// gets no answer (MCP), its sampling request is cancelled, and the session
// goes on.
func TestH24_8_CancelledRequestIsNotAnswered(t *testing.T) {
	p := startStdio(t, context.Background(), samplingServer(t))
	initSampling(t, p)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}`)
	p.next(t, `"method":"notifications/cancelled"`) // the sampling request's
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	p.next(t, `"id":3,"result"`)
	p.in.Close()
	for _, line := range p.rest(t) {
		if strings.Contains(line, `"id":2,`) {
			t.Errorf("the cancelled call was answered: %s", line)
		}
	}
}

// TestH24_8_DuplicateIDIsRefused: a request with the id of a request in
// flight gets an Invalid Request error with that id; the first is still
// answered.
func TestH24_8_DuplicateIDIsRefused(t *testing.T) {
	p := startStdio(t, context.Background(), samplingServer(t))
	initSampling(t, p)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	dup := p.next(t, `"id":2,`)
	if !strings.Contains(dup, `"code":-32600`) || !strings.Contains(dup, "already in use") {
		t.Errorf("duplicate id answer = %s", dup)
	}
	p.in.Close()
	if first := p.next(t, `"id":2,`); !strings.Contains(first, `"result"`) {
		t.Errorf("first call's answer = %s", first)
	}
}

// TestH24_8_StdioLineLimit: a line longer than MaxLineBytes is answered
// with an Invalid Request error, without buffering it, and the session
// goes on.
func TestH24_8_StdioLineLimit(t *testing.T) {
	srv := samplingServer(t)
	in := io.MultiReader(
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"),
		strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"`),
		io.LimitReader(repeatByte('x'), mcpserve.MaxLineBytes),
		strings.NewReader(`"}}`+"\n"+`{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n"))
	var out strings.Builder
	if err := srv.ServeStdio(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], `"id":null`) || !strings.Contains(lines[1], "longer than 16777216 bytes") ||
		!strings.Contains(lines[2], `"id":3,"result"`) {
		t.Fatalf("answers %q; want initialize, the line error, ping", lines)
	}
}

type repeatByte byte

func (b repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// httpPost posts body to url in session sid ("" for none) and returns the
// status, the session id answered and the body.
func httpPost(t *testing.T, url, sid, body string) (int, string, string) {
	t.Helper()
	return postVersion(t, url, sid, "2025-06-18", body)
}

// postVersion is httpPost naming protocol version in the session's
// requests.
func postVersion(t *testing.T, url, sid, version, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(data)
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func httpSessions(srv *mcpserve.Server) int {
	n := 0
	for ss := range srv.SDK().Sessions() {
		if ss.ID() != "" {
			n++
		}
	}
	return n
}

// TestH24_7_SessionsAreCapped: past MaxSessions a new session closes the
// least recently used idle one (its client gets 404); when every session
// has a request in flight the new one is refused with 503 and a JSON-RPC
// error.
func TestH24_7_SessionsAreCapped(t *testing.T) {
	srv := samplingServer(t)
	ts := httptest.NewServer(srv.Handler(mcpserve.HTTPOptions{MaxSessions: 2}))
	defer ts.Close()
	url := ts.URL + "/mcp"
	var sids []string
	for i := range 3 {
		status, sid, _ := httpPost(t, url, "", initializeBody)
		if status != http.StatusOK || sid == "" {
			t.Fatalf("initialize %d: HTTP %d, session %q", i, status, sid)
		}
		sids = append(sids, sid)
		if i == 0 { // the first is used after the second: the second is the oldest
			continue
		}
		if i == 1 {
			httpPost(t, url, sids[0], `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		}
	}
	if n := httpSessions(srv); n != 2 {
		t.Fatalf("%d HTTP sessions after 3 initializes; want 2", n)
	}
	for i, want := range []int{http.StatusOK, http.StatusNotFound, http.StatusOK} {
		if status, _, _ := httpPost(t, url, sids[i], `{"jsonrpc":"2.0","id":3,"method":"ping"}`); status != want {
			t.Errorf("ping in session %d: HTTP %d, want %d", i, status, want)
		}
	}

	// Every session busy: refused.
	release, sampling := make(chan struct{}), make(chan struct{}, 1)
	ts2 := httptest.NewServer(samplingServer(t).Handler(mcpserve.HTTPOptions{MaxSessions: 1}))
	defer ts2.Close()
	url = ts2.URL + "/mcp"
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "busy", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			sampling <- struct{}{}
			<-release
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "late"}}, nil
		}}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: samplingProtocol})
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan struct{})
	defer func() { // the call in flight ends, then the client closes
		close(release)
		<-called
		cs.Close()
	}()
	go func() {
		defer close(called)
		cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"q": "x"}})
	}()
	<-sampling // the one session has a call in flight
	status, _, body := httpPost(t, url, "", initializeBody)
	var answer struct {
		ID    any `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if status != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &answer) != nil ||
		answer.Error.Code != mcpserve.CodeTooManySessions || !strings.Contains(answer.Error.Message, "too many sessions") {
		t.Fatalf("initialize with the one session busy: HTTP %d %s", status, body)
	}
}

// TestH24_7_IdleSessionsExpire: a session that receives no request for
// SessionIdleTimeout is closed.
func TestH24_7_IdleSessionsExpire(t *testing.T) {
	srv := samplingServer(t)
	ts := httptest.NewServer(srv.Handler(mcpserve.HTTPOptions{SessionIdleTimeout: 50 * time.Millisecond}))
	defer ts.Close()
	if status, sid, _ := httpPost(t, ts.URL+"/mcp", "", initializeBody); status != http.StatusOK || sid == "" {
		t.Fatalf("initialize: HTTP %d", status)
	}
	for deadline := time.Now().Add(20 * time.Second); httpSessions(srv) > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the idle session was never closed")
		}
	}
}

// TestH24_8_UnknownMethodOverHTTP: an unknown method over HTTP is a JSON-RPC
// error with the request's id (-32601), as over stdio, not HTTP 400.
func TestH24_8_UnknownMethodOverHTTP(t *testing.T) {
	srv := samplingServer(t)
	ts := httptest.NewServer(srv.Handler(mcpserve.HTTPOptions{}))
	defer ts.Close()
	url := ts.URL + "/mcp"
	_, sid, _ := httpPost(t, url, "", initializeBody)
	httpPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	status, _, body := httpPost(t, url, sid, `{"jsonrpc":"2.0","id":7,"method":"no/such"}`)
	if status != http.StatusOK || !strings.Contains(body, `"id":7`) || !strings.Contains(body, `"code":-32601`) {
		t.Fatalf("unknown method: HTTP %d %s", status, body)
	}
	// Other refusals stay the SDK's.
	if status, _, _ := httpPost(t, url, sid, `{"jsonrpc":"2.0","id":8,"method":"tools/call"}`); status != http.StatusBadRequest {
		t.Errorf("tools/call without params: HTTP %d, want 400", status)
	}
}

// TestH24_8_HTTPShutdownAnswersTheCall: a shutdown with a tool waiting for
// sampling cancels it after the grace and answers the call with an error
// before the server returns.
func TestH24_8_HTTPShutdownAnswersTheCall(t *testing.T) {
	srv := samplingServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.ServeStreamableHTTP(ctx, ln, mcpserve.HTTPOptions{}) }()
	sampled, release := make(chan struct{}, 1), make(chan struct{})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			sampled <- struct{}{}
			select { // never answers while the server runs
			case <-ctx.Done():
			case <-release:
			}
			return nil, context.Canceled
		}}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp",
		// The answer comes on the call's own stream. Without the standalone
		// stream, the SDK client cannot fail the call first when that stream
		// ends at shutdown and its reconnects are refused.
		DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: samplingProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	defer close(release)
	called := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"q": "x"}})
		if err != nil {
			t.Errorf("ask: %v", err)
		}
		called <- res
	}()
	<-sampled
	cancel()
	res := <-called
	if err := <-served; err != nil {
		t.Errorf("ServeStreamableHTTP = %v", err)
	}
	if res == nil || !res.IsError {
		t.Errorf("ask at shutdown = %+v; want an error result", res)
	}
}
