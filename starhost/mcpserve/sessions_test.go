package mcpserve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The limiter reads a session's protocol version once, when its initialize
// is answered, not by walking the server's sessions on every request; a
// later request whose header names an older version is served as the
// session's.
func TestSessionLimiter_VersionIsReadAtInitialize(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	var mu sync.Mutex
	var seen []string
	l := newSessionLimiter(srv, 4, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(sessionHeader) != "" {
			mu.Lock()
			seen = append(seen, r.Header.Get("MCP-Protocol-Version"))
			mu.Unlock()
		}
		sdk.ServeHTTP(w, r)
	}))
	post := func(sid, version, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			r.Header.Set(sessionHeader, sid)
			r.Header.Set("MCP-Protocol-Version", version)
		}
		w := httptest.NewRecorder()
		l.ServeHTTP(w, r)
		return w
	}
	w := post("", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := w.Header().Get(sessionHeader)
	if w.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	l.mu.Lock()
	u := l.use[sid]
	read, version := u != nil && u.versionRead, ""
	if u != nil {
		version = u.version
	}
	l.mu.Unlock()
	if !read || version != "2025-11-25" {
		t.Fatalf("after initialize the limiter holds version %q (read %v); want 2025-11-25", version, read)
	}
	post(sid, "2025-06-18", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != "2025-11-25" || seen[1] != "2025-11-25" {
		t.Errorf("the SDK saw versions %v; want the session's 2025-11-25 for both", seen)
	}
}

// waitEmpty waits on a channel closed when the last open call ends, not
// by polling: it reports true at once when none is open, false at its
// deadline while one is, and returns when the last one ends.
func TestCallsInFlight_WaitEmptyIsAChannel(t *testing.T) {
	id := func(n int64) jsonrpc.ID { i, _ := jsonrpc.MakeID(float64(n)); return i }
	c := newCallsInFlight()
	if !c.waitEmpty(time.Now()) {
		t.Fatal("no call open, yet waitEmpty says one is")
	}
	a := c.start("s", id(1))
	b := c.start("s", id(2))
	if a == nil || b == nil || c.start("s", id(1)) != nil {
		t.Fatal("start: a reused id in flight must be refused, others admitted")
	}
	if c.waitEmpty(time.Now()) {
		t.Fatal("two calls open, yet waitEmpty says none is")
	}
	c.mu.Lock()
	empty := c.empty
	c.mu.Unlock()
	c.end("s", a)
	select {
	case <-empty:
		t.Fatal("the channel closed while a call is still open")
	default:
	}
	done := make(chan bool)
	go func() { done <- c.waitEmpty(time.Now().Add(time.Hour)) }()
	c.end("s", b)
	if !<-done {
		t.Error("waitEmpty did not see the last call end")
	}
	if c.start("s", id(3)) == nil || c.waitEmpty(time.Now()) {
		t.Error("a call opened after the set emptied is not waited for")
	}
}
