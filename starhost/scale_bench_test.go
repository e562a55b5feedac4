package starhost_test

// The scale figures (issue 15): n generated one-tool plugins, host against
// raw go.starlark.net in one run. docs/performance.md ("Scale") records the
// results and the commands.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/scalegen"
	"github.com/crystal-star/crystal-star/lifecycle"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/trust"
)

// scaleSizes are the plugin counts of BenchmarkScale: CRYSTAL_SCALE
// (comma-separated), else 100 and 1,000. 10,000 is opt-in
// (CRYSTAL_SCALE=100,1000,10000) so a plain -bench . stays short.
func scaleSizes(tb testing.TB) []int {
	spec := os.Getenv("CRYSTAL_SCALE")
	if spec == "" {
		spec = "100,1000"
	}
	var out []int
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			tb.Fatalf("CRYSTAL_SCALE: bad size %q", f)
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkScale reports, per size n, in one run and interleaved op by op:
//
//   - start-ms: starhost.New + Start over n dev plugins (discover, read,
//     fingerprint, compile, execute, publish, attach);
//   - raw-ms: reading the same plugin.toml and plugin.star files and
//     executing each plugin.star with rawExec on one goroutine, and
//     rawpar-ms the same on GOMAXPROCS goroutines (the same cores the host
//     uses); start/raw and start/rawpar are the ratios;
//   - close-ms: Close of that host;
//   - cpu-start/raw: the same ratio in CPU time (user + system, all
//     threads, garbage collection included), which the other work on a
//     shared machine does not move;
//   - heap-KB/plugin: the live heap the started host adds, per plugin
//     (after two collections);
//   - reload-p50-ms / reload-p99-ms: Host.Reload of one edited plugin with
//     the n plugins loaded (no watcher debounce).
func BenchmarkScale(b *testing.B) {
	for _, n := range scaleSizes(b) {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchScale(b, n) })
	}
}

func benchScale(b *testing.B, n int) {
	root := b.TempDir()
	if err := scalegen.Write(root, n); err != nil {
		b.Fatal(err)
	}
	tmp := b.TempDir()
	opts := starhost.Options{Home: filepath.Join(tmp, "home"), Workspace: tmp, Dev: []string{root}}
	newHost := func() *starhost.Host {
		h, err := starhost.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		h.Start(context.Background())
		return h
	}

	// Heap per plugin and reload latency, once, on a host of its own.
	before := liveHeap()
	h := newHost()
	heapPer := float64(liveHeap()-before) / float64(n) / 1024
	if got := h.Session().Thread("").Tools(context.Background(), starhost.Work).Len(); got < n {
		b.Fatalf("%d tools for %d plugins", got, n)
	}
	p50, p99 := reloadLatency(b, h, filepath.Join(root, scalegen.Dir(0)))
	h.Close(context.Background())
	runtime.KeepAlive(h)

	predeclared := rawPredeclared()
	raw := func(i int) {
		dir := filepath.Join(root, scalegen.Dir(i))
		if _, err := os.ReadFile(filepath.Join(dir, "plugin.toml")); err != nil {
			b.Fatal(err)
		}
		src, err := os.ReadFile(filepath.Join(dir, "plugin.star"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := rawExec(map[string][]byte{"plugin.star": src}, "plugin.star", predeclared); err != nil {
			b.Fatal(err)
		}
	}
	var start, closing, rawSeq, rawPar time.Duration
	var startCPU, rawCPU time.Duration
	timed := func(f func(), cpu *time.Duration) time.Duration {
		runtime.GC() // each part starts on a clean heap
		c, t := cpuTime(), time.Now()
		f()
		wall := time.Since(t)
		if cpu != nil {
			*cpu += cpuTime() - c
		}
		return wall
	}
	b.ResetTimer()
	for range b.N {
		var h *starhost.Host
		start += timed(func() { h = newHost() }, &startCPU)
		closing += timed(func() { h.Close(context.Background()) }, nil)
		rawSeq += timed(func() {
			for i := range n {
				raw(i)
			}
		}, &rawCPU)
		rawPar += timed(func() { parallelFor(n, raw) }, nil)
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(start), "start-ms")
	b.ReportMetric(ms(rawSeq), "raw-ms")
	b.ReportMetric(ms(rawPar), "rawpar-ms")
	b.ReportMetric(float64(start)/float64(rawSeq), "start/raw")
	b.ReportMetric(float64(start)/float64(rawPar), "start/rawpar")
	b.ReportMetric(float64(startCPU)/float64(rawCPU), "cpu-start/raw")
	b.ReportMetric(ms(closing), "close-ms")
	b.ReportMetric(heapPer, "heap-KB/plugin")
	b.ReportMetric(p50, "reload-p50-ms")
	b.ReportMetric(p99, "reload-p99-ms")
}

// cpuTime is the CPU time (user and system, every thread, the collector's
// included) this process has used: on a shared machine it is the figure
// other processes do not move.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveHeap is the live heap after two collections.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// reloadLatency edits the plugin in dir 40 times (two alternating sources,
// so each reload is a new fingerprint) and times Host.Reload of each.
func reloadLatency(b *testing.B, h *starhost.Host, dir string) (p50, p99 float64) {
	var lat []time.Duration
	for i := range 40 {
		src := scalegen.Source(0) + "\n# edit " + strconv.Itoa(i%2) + "\n"
		if err := os.WriteFile(filepath.Join(dir, "plugin.star"), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		t := time.Now()
		if err := h.Reload(context.Background(), dir); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	if err := os.WriteFile(filepath.Join(dir, "plugin.star"), []byte(scalegen.Source(0)), 0o644); err != nil {
		b.Fatal(err)
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100])
}

// parallelFor calls f(i) for i in [0, n) on GOMAXPROCS goroutines.
func parallelFor(n int, f func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		})
	}
	wg.Wait()
}

// BenchmarkScaleInstalled starts and closes hosts over n granted home
// plugins (the trust file written directly, one grant each): admission
// reads the trust file once, not once per plugin. It reports start-ms and
// close-ms.
func BenchmarkScaleInstalled(b *testing.B) {
	for _, n := range scaleSizes(b) {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			home := b.TempDir()
			root := filepath.Join(home, "plugins")
			if err := scalegen.Write(root, n); err != nil {
				b.Fatal(err)
			}
			f := trust.File{Version: 1}
			for i := range n {
				dir := filepath.Join(root, scalegen.Dir(i))
				m, diags := lifecycle.ParseManifest("plugin.toml", []byte(scalegen.Manifest(i)), scalegen.Dir(i))
				bundle, err := lifecycle.ReadBundle(dir)
				if m == nil || err != nil {
					b.Fatal(diags, err)
				}
				f.Grants = append(f.Grants, trust.Grant{ID: m.ID, Fingerprint: lifecycle.Fingerprint(m, bundle), GrantedAt: time.Unix(0, 0).UTC()})
			}
			data, err := json.Marshal(f)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "plugin-trust.json"), data, 0o644); err != nil {
				b.Fatal(err)
			}
			var start, closing time.Duration
			b.ResetTimer()
			for range b.N {
				t := time.Now()
				h, err := starhost.New(starhost.Options{Home: home, Workspace: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				h.Start(context.Background())
				start += time.Since(t)
				if got := h.Session().Thread("").Tools(context.Background(), starhost.Work).Len(); got < n {
					b.Fatalf("%d tools for %d granted plugins", got, n)
				}
				t = time.Now()
				h.Close(context.Background())
				closing += time.Since(t)
			}
			b.ReportMetric(float64(start.Microseconds())/1000/float64(b.N), "start-ms")
			b.ReportMetric(float64(closing.Microseconds())/1000/float64(b.N), "close-ms")
		})
	}
}
