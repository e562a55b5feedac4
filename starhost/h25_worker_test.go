package starhost_test

import (
	"sync"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/toolwire"
)

// linesPlugin puts the session it serves on the status line (who), hides
// it again (hide), and sets a host-wide field where no session is served
// (attach_status).
const linesPlugin = `
def who(ctx, args):
    ctx.status.set("who", ctx.session_id)
    return ctx.session_id

def plain(ctx, args):
    return ctx.session_id

def hide(ctx, args):
    ctx.status.clear("who")
    return "hidden"

def attach_status(ctx, status):
    status.set("beat", "attached")

contribute(
    tools = [
        tool(name = "who", description = "Who is served.", parameters = {"type": "object"}, catalogs = "work", read_only = True, run = who),
        tool(name = "plain", description = "Who, without the line.", parameters = {"type": "object"}, catalogs = "work", read_only = True, run = plain),
        tool(name = "hide", description = "Hide who.", parameters = {"type": "object"}, catalogs = "work", read_only = True, run = hide),
    ],
    status_fields = [status_field(name = "who", description = "The session served"), status_field(name = "beat", description = "Host-wide")],
    attach_status = attach_status,
)
`

// TestH25_2_WorkerStatusValuesFollowTheSession: the rule of
// TestH25_2_StatusValuesBelongToTheirSession holds with the plugin in a
// worker process as in process: two sessions call the same tool, which sets
// a status field, and each line shows its own value only, also when they
// call at once; a clear hides the field on the caller's line only; a value
// set where no session is served (attach_status) shows on every line.
func TestH25_2_WorkerStatusValuesFollowTheSession(t *testing.T) {
	for _, iso := range []string{starhost.IsolationInProcess, starhost.IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			h := linesHost(t, iso)
			a, b := newSession(t, h, "a", "work"), newSession(t, h, "b", "work")
			lines := func(when, wantA, wantB string) {
				t.Helper()
				if la, lb := a.StatusLine(), b.StatusLine(); la != wantA || lb != wantB {
					t.Errorf("%s: a's line %q, b's %q; want %q and %q", when, la, lb, wantA, wantB)
				}
			}
			lines("after attach", "attached", "attached")
			call(a, "who")
			lines("after a's call", "a · attached", "attached")
			call(b, "who")
			lines("after b's call", "a · attached", "b · attached")
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 25 {
						for _, s := range []*starhost.Session{a, b} {
							if got := call(s, "who"); toolwire.ResultText(got) != s.Facts().SessionID {
								t.Errorf("goroutine %d: who = %+v in session %s", g, got, s.Facts().SessionID)
							}
						}
					}
				}()
			}
			wg.Wait()
			lines("after calls at once", "a · attached", "b · attached")
			call(a, "hide")
			lines("after a's clear", "attached", "b · attached")
		})
	}
}

// linesHost starts a host over linesPlugin, in isolation iso, with both
// fields on the operator's line.
func linesHost(t testing.TB, iso string) *starhost.Host {
	t.Helper()
	h, _ := statusHost(t, "lines", linesPlugin, starhost.Options{Isolation: iso})
	return h
}
