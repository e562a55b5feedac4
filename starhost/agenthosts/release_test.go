package agenthosts

import (
	"context"
	"runtime"
	"testing"
	"weak"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestH27_1_ClosedHostIsReleasedWithItsSessions: a host that closes with
// agent sessions that never ended is not kept in memory by this package:
// once its embedder lets go of it, the host and its sessions are
// collected. While the host lives, its sessions stay (the same host
// session serves every call of an agent session).
func TestH27_1_ClosedHostIsReleasedWithItsSessions(t *testing.T) {
	ctx := context.Background()
	host, sess := func() (weak.Pointer[starhost.Host], weak.Pointer[starhost.Session]) {
		h, err := starhost.New(starhost.Options{Home: t.TempDir(), Workspace: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Start(ctx); err != nil {
			t.Fatal(err)
		}
		s := &Session{Host: h, ID: "unended", Workspace: t.TempDir()}
		hs, err := s.HostSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC() // the host is alive: its sessions must stay
		if again, _ := s.HostSession(ctx); again != hs {
			t.Fatal("a live host lost its agent session's host session")
		}
		h.Close(ctx)
		return weak.Make(h), weak.Make(hs)
	}()
	runtime.GC()
	runtime.GC()
	if host.Value() != nil || sess.Value() != nil {
		t.Fatal("a closed host with an unended agent session is still in memory after its embedder let go of it")
	}
}
