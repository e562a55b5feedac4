package toolsets_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/toolsets"
)

// rawServer is a hand-written MCP server on an in-memory connection: unlike
// the SDK's server it can flood notifications and never answer a call.
// Every tools/list after the first waits for gate; tools/call is never
// answered.
type rawServer struct {
	conn mcp.Connection

	mu        sync.Mutex
	lists     int // tools/list requests received
	inFlight  int // tools/list not yet answered
	maxFlight int
	cancelled []string // requestIds of notifications/cancelled
	gate      chan struct{}
	pongs     chan struct{}
}

func newRawServer() *rawServer {
	return &rawServer{gate: make(chan struct{}), pongs: make(chan struct{}, 1)}
}

func (r *rawServer) dial(ctx context.Context, _ string, _ starhost.ToolSetConfig) (mcp.Transport, error) {
	ct, st := mcp.NewInMemoryTransports()
	conn, err := st.Connect(ctx)
	if err != nil {
		return nil, err
	}
	r.conn = conn
	go r.serve(ctx)
	return ct, nil
}

func (r *rawServer) answer(ctx context.Context, id jsonrpc.ID, result string) {
	_ = r.conn.Write(ctx, &jsonrpc.Response{ID: id, Result: json.RawMessage(result)})
}

func (r *rawServer) serve(ctx context.Context) {
	for {
		msg, err := r.conn.Read(ctx)
		if err != nil {
			return
		}
		switch m := msg.(type) {
		case *jsonrpc.Response: // the client's answer to our ping
			r.pongs <- struct{}{}
		case *jsonrpc.Request:
			switch m.Method {
			case "initialize":
				r.answer(ctx, m.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"raw","version":"1"}}`)
			case "tools/list":
				r.mu.Lock()
				r.lists++
				first := r.lists == 1
				r.inFlight++
				r.maxFlight = max(r.maxFlight, r.inFlight)
				r.mu.Unlock()
				go func() {
					if !first {
						<-r.gate
					}
					r.mu.Lock()
					r.inFlight--
					r.mu.Unlock()
					r.answer(ctx, m.ID, `{"tools":[{"name":"slow","inputSchema":{"type":"object"}}]}`)
				}()
			case "tools/call": // never answered
			default:
				if m.IsCall() { // server/discover (2026-07-28): the client falls back to initialize
					_ = r.conn.Write(ctx, &jsonrpc.Response{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}})
				}
			case "notifications/cancelled":
				var p struct {
					RequestID any `json:"requestId"`
				}
				_ = json.Unmarshal(m.Params, &p)
				r.mu.Lock()
				r.cancelled = append(r.cancelled, strings.TrimSpace(string(mustJSON(p.RequestID))))
				r.mu.Unlock()
			}
		}
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// flood sends n tools/list_changed, then pings the client and waits for its
// answer: the client handles messages in order, so by then it has handled
// every notification.
func (r *rawServer) flood(ctx context.Context, t *testing.T, n int) {
	t.Helper()
	for range n {
		if err := r.conn.Write(ctx, &jsonrpc.Request{Method: "notifications/tools/list_changed"}); err != nil {
			t.Fatal(err)
		}
	}
	id, _ := jsonrpc.MakeID("sync")
	if err := r.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "ping"}); err != nil {
		t.Fatal(err)
	}
	<-r.pongs
}

func (r *rawServer) counts() (lists, maxFlight int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lists, r.maxFlight
}

// startRawSet starts a host whose home declares the set "raw", served by
// srv, with opts.
func startRawSet(t *testing.T, srv *rawServer, config string, opts toolsets.Options) (*starhost.Host, *toolsets.Runner) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config+"\n[tool_sets.raw]\ncommand = [\"unused\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := starhost.New(starhost.Options{Home: home, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	opts.Dial = srv.dial
	r := toolsets.Start(context.Background(), h, opts)
	t.Cleanup(r.Close)
	if !state(h, "raw").Loaded {
		t.Fatalf("raw set not loaded: %+v", state(h, "raw"))
	}
	return h, r
}

// TestH24_6_ListChangedFloodIsCoalesced: a server flooding
// tools/list_changed while its tools/list is slow costs one tools/list in
// flight and one pending, not one per notification.
func TestH24_6_ListChangedFloodIsCoalesced(t *testing.T) {
	srv := newRawServer()
	startRawSet(t, srv, "", toolsets.Options{})
	open := sync.OnceFunc(func() { close(srv.gate) })
	t.Cleanup(open) // before the runner closes: its refreshes wait for the gate
	ctx := context.Background()

	srv.flood(ctx, t, 500)
	eventually(t, "a refresh", func() bool { l, _ := srv.counts(); return l >= 2 })
	lists, maxFlight := srv.counts()
	if maxFlight != 1 || lists != 2 {
		t.Fatalf("after 500 list_changed: %d tools/list received, %d at once; want the first listing and one refresh in flight", lists, maxFlight)
	}
	open() // the refresh in flight answers; the pending one runs once
	eventually(t, "the pending refresh", func() bool { l, _ := srv.counts(); return l == 3 })
	srv.flood(ctx, t, 1) // idle again: the next notification refreshes
	eventually(t, "a refresh after the flood", func() bool { l, _ := srv.counts(); return l == 4 })
	if lists, maxFlight := srv.counts(); lists != 4 || maxFlight != 1 {
		t.Fatalf("%d tools/list, %d at once; want 4, 1", lists, maxFlight)
	}
}

// TestH24_6_ToolSetCallTimesOut: a set that never answers a call fails it
// with tool_set_timeout after the call timeout — by default the host's
// callback_timeout — and tells the server the call is cancelled.
func TestH24_6_ToolSetCallTimesOut(t *testing.T) {
	for _, c := range []struct{ name, config string }{
		{"callback_timeout", `callback_timeout = "50ms"`},
		{"option", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newRawServer()
			opts := toolsets.Options{}
			if c.config == "" {
				opts.CallTimeout = starhostTestTimeout
			}
			h, _ := startRawSet(t, srv, c.config, opts)
			res := mainThread(h).Tools(context.Background(), starhost.Work).Invoke(context.Background(), "slow", nil)
			if !errors.Is(res.Err(), toolsets.ErrCallTimeout) {
				t.Fatalf("slow = %+v; want %s", res, toolsets.ErrCallTimeout)
			}
			if !strings.Contains(res.Error.Message, `tool set "raw" did not answer "slow" within`) {
				t.Errorf("message %q", res.Error.Message)
			}
			eventually(t, "notifications/cancelled for the call", func() bool {
				srv.mu.Lock()
				defer srv.mu.Unlock()
				return len(srv.cancelled) == 1
			})
		})
	}
}

// starhostTestTimeout is the call timeout the option case sets.
const starhostTestTimeout = 50 * time.Millisecond
