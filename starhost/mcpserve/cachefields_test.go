package mcpserve_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

// lockedBuffer is a buffer written by the SDK's reader and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// wireLists connects an SDK client on protocol version (empty: the SDK's
// latest), lists tools, prompts, resources and templates, and returns the
// messages the client read, as they were on the wire.
func wireLists(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	h, ctx := watchedHost(t, starhost.Options{Home: filepath.Join(dir, "home"), Workspace: dir})
	srv := mcpserve.New(h, mcpserve.Options{})
	t.Cleanup(srv.Close)
	st, ct := mcp.NewInMemoryTransports()
	go func() { _ = srv.Run(ctx, st) }()
	var wire lockedBuffer
	cctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(cctx, &mcp.LoggingTransport{Transport: ct, Writer: &wire}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(cctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListPrompts(cctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListResources(cctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListResourceTemplates(cctx, nil); err != nil {
		t.Fatal(err)
	}
	return wire.String()
}

// TestMCPCacheFieldsOnlyFrom20260728: the cache hints ttlMs and cacheScope,
// which the SDK writes on every list result, are not in the schema before
// protocol 2026-07-28 and are left out there; on 2026-07-28 they stay.
func TestMCPCacheFieldsOnlyFrom20260728(t *testing.T) {
	lists := []string{`"tools":[`, `"prompts":[`, `"resources":[`, `"resourceTemplates":[`}
	for _, v := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		wire := wireLists(t, v)
		for _, list := range lists {
			line := ""
			for _, l := range strings.Split(wire, "\n") {
				if strings.HasPrefix(l, "read: ") && strings.Contains(l, list) {
					line = l
				}
			}
			hinted := strings.Contains(line, `"ttlMs":0,"cacheScope":"public"`)
			switch {
			case line == "":
				t.Errorf("%s: no %s result on the wire:\n%s", v, list, wire)
			case v < "2026-07-28" && (hinted || strings.Contains(line, "ttlMs") || strings.Contains(line, "cacheScope")):
				t.Errorf("%s: cache hints in %s", v, line)
			case v >= "2026-07-28" && !hinted:
				t.Errorf("%s: no cache hints in %s", v, line)
			}
		}
	}
}
