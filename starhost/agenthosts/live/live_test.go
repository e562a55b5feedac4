package live_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/starhost/agenthosts/live"
)

func echo(tag string) live.Handler {
	return func(_ context.Context, req live.Request) live.Reply {
		return live.Reply{Stdout: append([]byte(tag+":"), req.Input...)}
	}
}

// A session's hook reaches its live process; another session's does not.
func TestH27_3_CallReachesTheSessionsLiveProcess(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	ctx := context.Background()
	if _, err := live.Call(ctx, "a", live.Request{Command: "hook"}); !errors.Is(err, live.ErrNoLive) {
		t.Fatalf("no live process: %v; want ErrNoLive", err)
	}
	srv, err := live.Listen(ctx, "a", echo("one"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rep, err := live.Call(ctx, "a", live.Request{Command: "hook", Input: []byte("x")})
	if err != nil || string(rep.Stdout) != "one:x" {
		t.Fatalf("forwarded: %q, %v", rep.Stdout, err)
	}
	if _, err := live.Call(ctx, "b", live.Request{Command: "hook"}); !errors.Is(err, live.ErrNoLive) {
		t.Fatalf("session b: %v; want ErrNoLive", err)
	}
	fi, err := os.Stat(srv.Path())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}

// The newest live process of a session wins, and the older one's Close
// leaves the newer socket in place.
func TestH27_3_NewestLiveProcessWins(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	ctx := context.Background()
	old, err := live.Listen(ctx, "s", echo("old"))
	if err != nil {
		t.Fatal(err)
	}
	cur, err := live.Listen(ctx, "s", echo("new"))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	old.Close()
	rep, err := live.Call(ctx, "s", live.Request{Command: "hook", Input: []byte("x")})
	if err != nil || string(rep.Stdout) != "new:x" {
		t.Fatalf("after the old one closed: %q, %v; want new:x", rep.Stdout, err)
	}
	cur.Close()
	if _, err := os.Stat(cur.Path()); !os.IsNotExist(err) {
		t.Fatalf("the socket outlives its process: %v", err)
	}
}

// A socket directory other users may open is refused: no live sessions.
func TestH27_3_SharedDirectoryIsRefused(t *testing.T) {
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	if err := os.Mkdir(filepath.Join(rt, "crystal-star"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(rt, "crystal-star"), 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := live.Listen(context.Background(), "s", echo("x")); err == nil {
		t.Fatal("Listen in a directory others may open: no error")
	}
	if _, err := live.Call(context.Background(), "s", live.Request{}); !errors.Is(err, live.ErrNoLive) {
		t.Fatalf("Call: %v; want ErrNoLive", err)
	}
}

// Gemini CLI's hooks find the live process among their ancestors, the
// nearest first; one that serves another agent session (OtherSession) is
// passed over, and a process that is no ancestor is never asked.
func TestH27_3_GeminiKeysAreTheAncestors(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	keys := live.Keys("gemini-cli", []byte(`{"session_id":"g-1"}`))
	if len(keys) < 2 {
		t.Skipf("ancestors %q: need /proc and two of them", keys)
	}
	if k, _ := live.ParentKey(); keys[0] != k {
		t.Fatalf("first key %q; want the parent's %q", keys[0], k)
	}
	if got := live.Keys("claude-code", []byte(`{"session_id":"c-1"}`)); len(got) != 1 || got[0] != "c-1" {
		t.Fatalf("Claude Code's keys %q; want its session id", got)
	}
	ctx := context.Background()
	for _, k := range []string{"process 1 0", keys[1]} {
		srv, err := live.Listen(ctx, k, echo(k))
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
	}
	rep, err := live.Forward(ctx, keys, live.Request{Command: "hook", Input: []byte("x")})
	if err != nil || string(rep.Stdout) != keys[1]+":x" {
		t.Fatalf("forwarded: %q, %v; want the grandparent's", rep.Stdout, err)
	}
	other, err := live.Listen(ctx, keys[0], func(context.Context, live.Request) live.Reply { return live.Reply{OtherSession: true} })
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	rep, err = live.Forward(ctx, keys, live.Request{Command: "hook", Input: []byte("y")})
	if err != nil || string(rep.Stdout) != keys[1]+":y" {
		t.Fatalf("past a live process of another session: %q, %v; want the grandparent's", rep.Stdout, err)
	}
	if _, err := live.Forward(ctx, keys[:1], live.Request{Command: "hook"}); !errors.Is(err, live.ErrNoLive) {
		t.Fatalf("only a live process of another session: %v; want ErrNoLive", err)
	}
}
