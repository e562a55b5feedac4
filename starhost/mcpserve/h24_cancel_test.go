package mcpserve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

// TestH24_8_HTTPCancelCancelsSampling: over Streamable HTTP, a tool call
// the client cancels while the tool waits for the client's sampling answer
// gets the sampling request's notifications/cancelled on the call's event
// stream every time, not when a race happens to favour it (3 of 8 runs
// before), and the cancelled call is not answered (MCP: a cancelled
// request should not be); its stream ends without an answer.
func TestH24_8_HTTPCancelCancelsSampling(t *testing.T) {
	srv := samplingServer(t)
	ts := httptest.NewServer(srv.Handler(mcpserve.HTTPOptions{}))
	defer ts.Close()
	url := ts.URL + "/mcp"
	sid := rawSamplingSession(t, url)
	const runs = 8
	for run := range runs {
		id := 10 + run
		cancelled, answered := cancelDuringSampling(t, url, sid, id)
		if !cancelled {
			t.Errorf("run %d: the call's stream carried no notifications/cancelled for its sampling request", run)
		}
		if answered {
			t.Errorf("run %d: the cancelled call was answered", run)
		}
	}
}

// cancelDuringSampling calls the ask tool with request id id, cancels the
// call once its sampling request arrives, and reads the call's event
// stream to its end: did a cancellation of the sampling request come, and
// did the call's answer come?
func cancelDuringSampling(t *testing.T, url, sid string, id int) (cancelled, answered bool) {
	t.Helper()
	ctx, stop := context.WithTimeout(context.Background(), 20*time.Second)
	defer stop()
	resp := openStream(t, ctx, "POST", url, sid, samplingProtocol, "", fmt.Sprintf(
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask","arguments":{"q":"x"}}}`, id))
	defer resp.Body.Close()
	var sampling json.RawMessage
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "" { // the priming event has no data
			continue
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(data), &m) != nil {
			t.Fatalf("not JSON on the stream: %s", data)
		}
		switch {
		case m.Method == "sampling/createMessage":
			sampling = m.ID
			rawPost(t, url, sid, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"test"}}`, id))
		case m.Method == "notifications/cancelled" && sampling != nil && string(m.Params.RequestID) == string(sampling):
			cancelled = true
		case m.Method == "" && string(m.ID) == fmt.Sprint(id):
			answered = true
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("call %d: its stream did not end in 20 s", id)
	}
	return cancelled, answered
}

// openStream sends one request of session sid (lastID: a resumption's
// Last-Event-ID) and returns the response, whose body the caller reads and
// closes.
func openStream(t *testing.T, ctx context.Context, method, url, sid, version, lastID, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", version)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// rawPost is httpPost with the sampling protocol version.
func rawPost(t *testing.T, url, sid, body string) (int, string, string) {
	t.Helper()
	return postVersion(t, url, sid, samplingProtocol, body)
}

// rawSamplingSession opens a session at url as a client that can sample, on
// the sampling protocol version, and returns its id.
func rawSamplingSession(t *testing.T, url string) string {
	t.Helper()
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{"sampling":{}},"clientInfo":{"name":"raw","version":"1"}}}`, samplingProtocol)
	status, sid, body := rawPost(t, url, "", init)
	if status != http.StatusOK || sid == "" {
		t.Fatalf("initialize: HTTP %d %s", status, body)
	}
	rawPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

// TestH24_8_HTTPDuplicateIDIsRefused: over Streamable HTTP, a call reusing
// the id of a call in flight in its session is refused with -32600 and that
// id, and the first call is still answered on its own stream: each request
// gets exactly one answer, as over stdio.
func TestH24_8_HTTPDuplicateIDIsRefused(t *testing.T) {
	srv := samplingServer(t)
	ts := httptest.NewServer(srv.Handler(mcpserve.HTTPOptions{}))
	defer ts.Close()
	url := ts.URL + "/mcp"
	sid := rawSamplingSession(t, url)
	ctx, stop := context.WithTimeout(context.Background(), 20*time.Second)
	defer stop()
	resp := openStream(t, ctx, "POST", url, sid, samplingProtocol, "", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask","arguments":{"q":"x"}}}`)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var sampling string
	for sampling == "" && sc.Scan() { // the first call waits for the client's model
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && json.Unmarshal([]byte(data), &m) == nil && m.Method == "sampling/createMessage" {
			sampling = string(m.ID)
		}
	}
	status, _, dup := rawPost(t, url, sid, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if status != http.StatusOK || !strings.Contains(dup, `"id":5`) || !strings.Contains(dup, `"code":-32600`) || !strings.Contains(dup, "already in use") {
		t.Errorf("duplicate id: HTTP %d %s", status, dup)
	}
	rawPost(t, url, sid, `{"jsonrpc":"2.0","id":`+sampling+`,"result":{"role":"assistant","model":"m","content":{"type":"text","text":"yes"}}}`)
	var answer string
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(data, `"id":5`) {
			answer = data
		}
	}
	if !strings.Contains(answer, "model said: yes") {
		t.Errorf("the first call's answer = %q; want the tool's result", answer)
	}
}
