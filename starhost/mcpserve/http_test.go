package mcpserve_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

// bearer adds a token to every request of a client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func initializeStatus(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestMCPHTTPGuard: the Streamable HTTP endpoint refuses a foreign Host or
// Origin (DNS rebinding) with 403 and a request without the token with
// 401, and serves the SDK client that brings it.
func TestMCPHTTPGuard(t *testing.T) {
	f := newFixture(t)
	ts := httptest.NewServer(f.srv.Handler(mcpserve.HTTPOptions{Token: "s3cret", AllowedHosts: []string{"mcp.internal"}}))
	defer ts.Close()
	url := ts.URL + "/mcp"
	auth := "Bearer s3cret"
	for _, c := range []struct {
		header map[string]string
		want   int
	}{
		{map[string]string{"Host": "evil.example.com", "Authorization": auth}, http.StatusForbidden},
		{map[string]string{"Origin": "http://evil.example.com", "Authorization": auth}, http.StatusForbidden},
		{map[string]string{}, http.StatusUnauthorized},
		{map[string]string{"Authorization": "Bearer wrong"}, http.StatusUnauthorized},
		{map[string]string{"Authorization": auth, "Origin": "http://localhost:1234"}, http.StatusOK},
		{map[string]string{"Authorization": auth, "Host": "mcp.internal:80"}, http.StatusOK},
	} {
		if got := initializeStatus(t, url, c.header); got != c.want {
			t.Errorf("initialize with %v: HTTP %d, want %d", c.header, got, c.want)
		}
	}
	if got := initializeStatus(t, ts.URL+"/elsewhere", map[string]string{"Authorization": auth}); got != http.StatusNotFound {
		t.Errorf("initialize at /elsewhere: HTTP %d, want 404", got)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{"s3cret"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if text, r := callText(t, cs, "chatty", map[string]any{}); r.IsError || text != "done" {
		t.Errorf("chatty over HTTP = %q", text)
	}
}

// TestMCPServeStreamableHTTPShutsDown: ServeStreamableHTTP returns nil when
// its context ends, with a client session still open.
func TestMCPServeStreamableHTTPShutsDown(t *testing.T) {
	f := newFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.ServeStreamableHTTP(ctx, ln, mcpserve.HTTPOptions{}) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if names := toolNames(t, cs); len(names) == 0 {
		t.Fatal("no tools over HTTP")
	}
	cancel()
	if err := wait(t, done, "return of ServeStreamableHTTP"); err != nil {
		t.Errorf("ServeStreamableHTTP = %v, want nil on shutdown", err)
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{"localhost": true, "127.0.0.1": true, "127.3.4.5": true, "::1": true,
		"0.0.0.0": false, "10.0.0.1": false, "example.com": false, "": false} {
		if got := mcpserve.IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}
