package mcpserve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

// TestH29_4_PollAfterResumes: with HTTPOptions.PollAfter, a call still
// running after that long has its event stream closed with a retry hint
// (SEP-1699 polling) and no answer; the client resumes the stream with
// Last-Event-ID and reads the answer there. The session's protocol version
// governs even when a request's header names an older one, as the
// conformance suite's polling scenario sends.
func TestH29_4_PollAfterResumes(t *testing.T) {
	srv := samplingServer(t)
	ts := httptest.NewServer(srv.Handler(mcpserve.HTTPOptions{PollAfter: 20 * time.Millisecond}))
	defer ts.Close()
	url := ts.URL + "/mcp"
	sid := rawSamplingSession(t, url)

	// The call waits for the client's model; its stream closes meanwhile.
	events := sse(t, "POST", url, sid, "2025-03-26", "", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{"q":"x"}}}`)
	var sampling, lastID string
	var retry, answered bool
	for _, e := range events {
		if e.id != "" {
			lastID = e.id
		}
		retry = retry || e.retry != ""
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(e.data), &m) == nil {
			switch {
			case m.Method == "sampling/createMessage":
				sampling = string(m.ID)
			case m.Method == "" && string(m.ID) == "7":
				answered = true
			}
		}
	}
	if sampling == "" || !retry || answered || lastID == "" {
		t.Fatalf("the call's first stream: sampling %q, retry hint %v, answered %v, last event id %q; want a sampling request, a retry hint, no answer, an event id", sampling, retry, answered, lastID)
	}
	rawPost(t, url, sid, `{"jsonrpc":"2.0","id":`+sampling+`,"result":{"role":"assistant","model":"m","content":{"type":"text","text":"resumed"}}}`)
	var answer string
	for _, e := range sse(t, "GET", url, sid, "2025-03-26", lastID, "") {
		if strings.Contains(e.data, `"id":7`) {
			answer = e.data
		}
	}
	if !strings.Contains(answer, "model said: resumed") {
		t.Fatalf("the resumed stream's answer = %q", answer)
	}
}

type sseEvent struct{ id, retry, data string }

// sse sends one request and reads its event stream to the end, or to the
// answer of request 7.
func sse(t *testing.T, method, url, sid, version, lastID, body string) []sseEvent {
	t.Helper()
	ctx, stop := context.WithTimeout(context.Background(), 20*time.Second)
	defer stop()
	resp := openStream(t, ctx, method, url, sid, version, lastID, body)
	defer resp.Body.Close()
	var out []sseEvent
	var e sseEvent
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			out = append(out, e)
			if strings.Contains(e.data, `"id":7`) && !strings.Contains(e.data, `"method"`) {
				return out
			}
			e = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			e.id = line[len("id: "):]
		case strings.HasPrefix(line, "retry: "):
			e.retry = line[len("retry: "):]
		case strings.HasPrefix(line, "data: "):
			e.data = line[len("data: "):]
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %s: the stream did not end in 20 s", method, url)
	}
	return out
}
