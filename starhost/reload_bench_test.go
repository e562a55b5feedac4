package starhost_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// BenchmarkReloadLatency measures hot reload as a plugin author sees it: a
// file saved (written to a temporary file and renamed, as editors do) →
// the watcher's debounce → a new generation serving. It makes at least 200
// edits and reports p50 and p99.
func BenchmarkReloadLatency(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "reload")
	testkit.WriteTree(b, dir, map[string]string{"plugin.toml": reloadManifest, "plugin.star": reloadSource(0)})
	reloaded := make(chan string, 16)
	h, err := starhost.New(starhost.Options{Home: b.TempDir(), Workspace: b.TempDir(), Dev: []string{dir},
		Events: func(e starhost.Event) {
			if e.Kind == "reloaded" {
				reloaded <- e.Generation
			}
		}})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.Start(ctx)
	defer h.Close(context.Background())
	go h.Watch(ctx, nil)
	time.Sleep(50 * time.Millisecond) // let the watcher register its directories
	edits := max(b.N, 200)
	lat := make([]time.Duration, 0, edits)
	b.ResetTimer()
	for i := 1; i <= edits; i++ {
		tmp := filepath.Join(dir, ".plugin.star.tmp")
		os.WriteFile(tmp, []byte(reloadSource(i)), 0o644)
		start := time.Now()
		os.Rename(tmp, filepath.Join(dir, "plugin.star"))
		select {
		case <-reloaded:
			lat = append(lat, time.Since(start))
		case <-time.After(5 * time.Second):
			b.Fatalf("edit %d never reloaded", i)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(len(lat)), "edits")
}

// BenchmarkGenerationMemory reports the heap held per live generation (100
// plugins loaded at once) and after 1000 reloads of one plugin.
func BenchmarkGenerationMemory(b *testing.B) {
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for range b.N {
		root := b.TempDir()
		for i := range 100 {
			testkit.WriteTree(b, filepath.Join(root, fmt.Sprintf("p%03d", i)), map[string]string{
				"plugin.toml": fmt.Sprintf("id = \"acme.p%03d\"\nversion = \"1.0.0\"\n", i),
				"plugin.star": reloadSource(i),
			})

		}
		before := heap()
		h, _ := starhost.New(starhost.Options{Home: b.TempDir(), Workspace: b.TempDir(), Dev: []string{root}})
		h.Start(context.Background())
		live := heap()
		b.ReportMetric(float64(live-before)/100/1024, "KiB/generation")
		h.Close(context.Background())

		one, dir := reloadHost(b)
		base := heap()
		for i := 1; i <= 1000; i++ {
			testkit.WriteTree(b, dir, map[string]string{"plugin.star": reloadSource(i)})
			one.Reload(context.Background(), dir)
		}
		after := heap()
		b.ReportMetric(float64(int64(after)-int64(base))/1024, "KiB-growth/1000-reloads")
		b.ReportMetric(float64(one.Stats().LeakedGenerations), "leaked")
		one.Close(context.Background())
	}
}
