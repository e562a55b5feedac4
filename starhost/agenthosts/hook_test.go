package agenthosts

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type fakeEvent struct {
	Name  string          `json:"name"`
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
}

func (e *fakeEvent) EventName() string                   { return e.Name }
func (e *fakeEvent) ToolCall() (string, json.RawMessage) { return e.Tool, e.Input }

// TestH27_1_HookFailsClosed: the runner every agent host's adapter shares
// denies the tool event whenever its policy cannot run — bad tool input, a
// host that cannot start, a panic, a timeout — unless FailOpen, lets every
// other event go on with a note, and exits 2 on input that is no event.
func TestH27_1_HookFailsClosed(t *testing.T) {
	hook := func(open error, serve func() Reply, failOpen bool) Hook[*fakeEvent] {
		return Hook[*fakeEvent]{Command: "crystal-star hook fake", ToolEvent: "Tool", Events: []string{"Tool", "Other"},
			Parse: func(data []byte) (*fakeEvent, error) {
				var e fakeEvent
				if err := json.Unmarshal(data, &e); err != nil || e.Name == "" {
					return nil, errors.New("not an event")
				}
				return &e, nil
			},
			Open:  func(context.Context, *fakeEvent) (*Session, func(), error) { return nil, func() {}, open },
			Serve: func(context.Context, *Session, *fakeEvent) Reply { return serve() },
			Deny:  func(why string) Reply { return Reply{Stdout: []byte("deny: " + why)} }, FailOpen: failOpen}
	}
	ok := func() Reply { return Reply{Stdout: []byte("served")} }
	boom := func() Reply { panic("boom") }
	tool := []byte(`{"name":"Tool","tool":"Bash","input":{"command":"ls"}}`)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		what string
		h    Hook[*fakeEvent]
		ctx  context.Context
		data []byte
		out  string // prefix of stdout
		exit int
	}{
		{"served", hook(nil, ok, false), context.Background(), tool, "served", 0},
		{"no event", hook(nil, ok, false), context.Background(), []byte("garbage"), "", 2},
		{"unknown event", hook(nil, boom, false), context.Background(), []byte(`{"name":"Else"}`), "", 0},
		{"bad tool input", hook(nil, ok, false), context.Background(), []byte(`{"name":"Tool","tool":""}`), "deny: crystal-star cannot read", 0},
		{"host cannot start", hook(errors.New("no"), ok, false), context.Background(), tool, "deny: crystal-star could not start", 0},
		{"panic", hook(nil, boom, false), context.Background(), tool, "deny: crystal-star crashed", 0},
		{"timeout", hook(nil, ok, false), cancelled, tool, "deny: crystal-star ran out of time", 0},
		{"fail open", hook(nil, boom, true), context.Background(), tool, "", 0},
		{"other event panics", hook(nil, boom, false), context.Background(), []byte(`{"name":"Other"}`), "", 0},
	} {
		r := c.h.Run(c.ctx, c.data)
		if !strings.HasPrefix(string(r.Stdout), c.out) || (c.out == "" && len(r.Stdout) > 0) || r.Exit != c.exit {
			t.Errorf("%s: stdout %q, exit %d; want %q…, exit %d", c.what, r.Stdout, r.Exit, c.out, c.exit)
		}
		if c.out == "" && c.exit == 0 && (c.what == "fail open" || c.what == "other event panics") && !strings.HasPrefix(r.Stderr, "note: crystal-star crashed") {
			t.Errorf("%s: stderr %q; want a note", c.what, r.Stderr)
		}
	}
}
