package starhost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/internal/testkit/hostkit"
	"github.com/crystal-star/crystal-star/starhost"
)

const reloadManifest = "id = \"acme.reload\"\nversion = \"1.0.0\"\n"

func reloadSource(i int) string {
	return fmt.Sprintf(`def run(ctx, args):
    return "v%d:" + args["text"].upper()

contribute(tools = [tool(name = "echo", catalogs = "work", run = run,
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})])
`, i)
}

func reloadHost(t testing.TB) (*starhost.Host, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "reload")
	testkit.WriteTree(t, dir, map[string]string{"plugin.toml": reloadManifest, "plugin.star": reloadSource(0)})
	h, _ := hostkit.Start(t, starhost.Options{Dev: []string{dir}})
	return h, dir
}

// TestDC12_ConcurrentCallsDuringReloads: 8 goroutines invoke a tool while
// 200 reloads replace its generation. Every call returns a result or
// tool_unavailable; nothing panics; no goroutine is left behind.
func TestDC12_ConcurrentCallsDuringReloads(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test: it runs in the full suite (go test -race ./...), not under -short")
	}
	before := runtime.NumGoroutine()
	h, dir := reloadHost(t)
	var ok, unavailable atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				snap := h.Session().Thread("").Tools(context.Background(), starhost.Work)
				res := snap.Invoke(context.Background(), "echo", json.RawMessage(`{"text":"x"}`))
				switch {
				case res.OK():
					ok.Add(1)
				case res.Error.Code == starhost.ErrToolUnavailable || res.Error.Code == starhost.ErrUnknownTool:
					unavailable.Add(1)
				default:
					t.Errorf("call failed: %+v", res.Error)
					return
				}
			}
		}()
	}
	for i := 1; i <= 200; i++ {
		testkit.WriteTree(t, dir, map[string]string{"plugin.star": reloadSource(i)})
		if err := h.Reload(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	res := h.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(context.Background(), "echo", json.RawMessage(`{"text":"x"}`))
	if res.Text != "v200:X" {
		t.Fatalf("after 200 reloads: %+v, want v200:X", res)
	}
	if ok.Load() == 0 {
		t.Fatal("no call succeeded")
	}
	t.Logf("%d calls succeeded, %d saw tool_unavailable", ok.Load(), unavailable.Load())
	h.Close(context.Background())
	waitGoroutines(t, before)
}

// TestDC27_SoakReloadsLeakNothing: 1000 reload cycles end with no leaked
// generation and a flat heap.
func TestDC27_SoakReloadsLeakNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("soak test")
	}
	h, dir := reloadHost(t)
	defer h.Close(context.Background())
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	cycle := func(i int) {
		testkit.WriteTree(t, dir, map[string]string{"plugin.star": reloadSource(i)})
		h.Reload(context.Background(), dir)
		if res := h.Session().Thread("").Tools(context.Background(), starhost.Work).Invoke(context.Background(), "echo", json.RawMessage(`{"text":"a"}`)); !res.OK() {
			t.Fatalf("cycle %d: %+v", i, res.Error)
		}
	}
	for i := 1; i <= 100; i++ { // warm up
		cycle(i)
	}
	base := heap()
	for i := 101; i <= 1100; i++ {
		cycle(i)
	}
	after := heap()
	// Stats counts a generation as leaked once two collections ran since its
	// teardown and it is still reachable.
	runtime.GC()
	runtime.GC()
	st := h.Stats()
	if st.LeakedGenerations != 0 || st.RestartRecommended {
		t.Fatalf("stats after 1000 reloads: %+v", st)
	}
	t.Logf("heap: %d KiB after warm-up, %d KiB after 1000 more reloads", base/1024, after/1024)
	if after > base+64<<10 {
		t.Fatalf("heap grew from %d to %d bytes over 1000 reloads", base, after)
	}
}
