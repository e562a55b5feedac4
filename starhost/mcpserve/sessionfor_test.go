package mcpserve_test

import (
	"context"
	"sync"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

// TestH27_3_SessionForChoosesTheHostSession: Options.SessionFor chooses the
// host session an MCP session is served by. The MCP session it answers for
// runs its calls in the embedder's session (its session id, its status
// values, its model), and another it answers nil for gets one of its own.
func TestH27_3_SessionForChoosesTheHostSession(t *testing.T) {
	var (
		mine  *starhost.Session
		mu    sync.Mutex
		agent string // the first MCP session to ask is the agent's
	)
	_, connect, ask := sessionServer(t, func(h *starhost.Host) mcpserve.Options {
		var err error
		mine, err = h.NewSession(context.Background(), starhost.SessionOptions{Facts: starhost.Facts{SessionID: "agent-1"},
			Model: &starhost.ModelFacts{Provider: "acme", Protocol: "mcp-sampling", Model: "embedder"}})
		if err != nil {
			t.Fatal(err)
		}
		return mcpserve.Options{SessionFor: func(id string) *starhost.Session {
			mu.Lock()
			defer mu.Unlock()
			if agent == "" {
				agent = id
			}
			if id == agent {
				return mine
			}
			return nil
		}}
	})
	a := connect()
	if got, want := ask(a, "a"), "agent-1 embedder"; got != want {
		t.Errorf("the chosen MCP session: %q, want the embedder's session %q", got, want)
	}
	if got := mine.RenderStatusLine([]string{"client"}); got != "a" {
		t.Errorf("the embedder's session line: %q, want the value its MCP session set", got)
	}
	b := connect()
	if got, want := ask(b, "b"), b.ID()+" client"; got != want {
		t.Errorf("another MCP session: %q, want one of its own %q", got, want)
	}
	if got := mine.RenderStatusLine([]string{"client"}); got != "a" {
		t.Errorf("the embedder's session line after another session's call: %q", got)
	}
}
