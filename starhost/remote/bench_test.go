package remote_test

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkH28_RemoteCallInProcessExecutor is one caller's remote call to
// an executor served in the same process over loopback HTTP: the host's
// and the executor's work together, for profiles (the figures of
// docs/performance.md come from BenchmarkH28_5_CallLatency, with the
// executor a process of its own).
func BenchmarkH28_RemoteCallInProcessExecutor(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "grep")
	plugin(b, dir, "1")
	x := startExecutor(b)
	grant(b, x.home, dir)
	h := startHost(b, dir, x)
	b.ResetTimer()
	for range b.N {
		if res := call(h, context.Background(), "grep_remote", `{"pattern":"x"}`); !res.OK() {
			b.Fatal(res)
		}
	}
}
