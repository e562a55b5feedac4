package starhost_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

const mc8Source = `
def attach(ctx):
    print("attach %s" % ("env" if ctx.env != None else "no env"))

def started(ctx, ev):
    print("session_started %s" % ev["session_id"])
    return None

contribute(attach = attach, hooks = [hook("session_started", started), hook("session_ended", lambda ctx, ev: print("session_ended"))])
# %s
`

// TestMC8_AttachBeforeSessionStarted: the host guarantees attach before
// session_started, even when the embedder starts the session before Start;
// a reloaded generation gets session_started after its own attach; the
// others are not told twice.
func TestMC8_AttachBeforeSessionStarted(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	dir := filepath.Join(t.TempDir(), "p")
	testkit.WriteTree(t, dir, map[string]string{"plugin.toml": "id = \"acme.p\"\nversion = \"1.0.0\"\n", "plugin.star": mc8Source})
	h, err := starhost.New(starhost.Options{Home: t.TempDir(), Workspace: t.TempDir(), Dev: []string{dir},
		Notes: func(n starhost.Note) {
			if msg, ok := strings.CutPrefix(n.Message, "print: "); ok {
				mu.Lock()
				lines = append(lines, msg)
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	h.Session().SetFacts(starhost.Facts{SessionID: "s1"})
	h.Session().Start(context.Background()) // before Start: nothing is attached yet
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	testkit.WriteTree(t, dir, map[string]string{"plugin.star": strings.Replace(mc8Source, "# %s", "# v2", 1)})
	if err := h.Reload(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	h.Session().End(context.Background())
	mu.Lock()
	got := strings.Join(lines, "\n")
	mu.Unlock()
	want := "attach env\nsession_started s1\nattach env\nsession_started s1\nsession_ended"
	if got != want {
		t.Fatalf("order of callbacks:\n%s\nwant:\n%s", got, want)
	}
}
