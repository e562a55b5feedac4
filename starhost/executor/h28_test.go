package executor

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/crystal-star/crystal-star/internal/layout"
	"github.com/crystal-star/crystal-star/starhost/remote"
	"github.com/crystal-star/crystal-star/trust"
)

// grantedBundle packs a plugin with one remote tool and grants it in the
// executor home's trust file.
func grantedBundle(t *testing.T, home string) remote.Archive {
	t.Helper()
	a, err := remote.PackFiles(map[string][]byte{
		"plugin.toml": []byte("id = \"acme.echo\"\nversion = \"1.0.0\"\n"),
		"plugin.star": []byte(`
def echo(ctx, args):
    return "echo"

contribute(tools = [tool(name = "echo_remote", catalogs = "work", run = echo, remote = True)])
`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.NewStore(layout.Paths{Home: home}.Trust()).Grant(a.Plugin, a.Fingerprint, time.Now()); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestH28_3_ShutdownWaitsOnTheLastCall: Shutdown returns when the last
// call in flight leaves, woken by it, not by a clock: in a bubble of fake
// time, no time passes between the call's end and Shutdown's return.
func TestH28_3_ShutdownWaitsOnTheLastCall(t *testing.T) {
	home := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		x, err := New(Options{Home: home})
		if err != nil {
			t.Fatal(err)
		}
		if !x.calls.enter(x.draining.Load) {
			t.Fatal("a call was refused before the executor drained")
		}
		done := make(chan error)
		go func() { done <- x.Shutdown(context.Background()) }()
		synctest.Wait() // Shutdown drains and waits for the call
		if x.calls.enter(x.draining.Load) {
			t.Fatal("a call was admitted while the executor drains")
		}
		start := time.Now()
		x.calls.leave()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("Shutdown returned %v after the last call left; want it woken by the call's end", waited)
		}
	})
}
