package starhost_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// BenchmarkInvokeLimits measures what the in-process limits cost a tool
// call: the heap watchdog's registration of the run, the callback_timeout
// context and the repeat guard. In each pair, "host" has the limits on (the
// defaults) and "raw" is the same host with MemoryLimit and CallbackTimeout
// set to -1 (off); ratio interleaves the two.
func BenchmarkInvokeLimits(b *testing.B) {
	trivialDir := filepath.Join(b.TempDir(), "trivial")
	testkit.Plugin{ID: "bench.trivial", Source: trivialSource}.Write(b, trivialDir)
	on := startHost(b, reviewDir, trivialDir)
	off := startHostWith(b, starhost.Options{MemoryLimit: -1, CallbackTimeout: -1}, reviewDir, trivialDir)
	call := func(h *starhost.Host, tool string, args map[string]any) func(testing.TB) {
		raw, _ := json.Marshal(args)
		snap := h.Session().Thread("").Tools(context.Background(), starhost.Work)
		return func(tb testing.TB) {
			if res := snap.Invoke(context.Background(), tool, raw); res.Error != nil {
				tb.Fatal(res.Error)
			}
		}
	}
	realistic := map[string]any{"text": reviewText, "max_words": 40}
	b.Run("Realistic", pair{host: call(on, "review_summary", realistic), raw: call(off, "review_summary", realistic)}.run)
	trivial := map[string]any{"text": "hello"}
	b.Run("Trivial", pair{host: call(on, "echo", trivial), raw: call(off, "echo", trivial)}.run)
}
