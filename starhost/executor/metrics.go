package executor

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// latencyBuckets are the upper bounds (seconds) of the call latency
// histogram.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// metrics are the executor's counters, served in the Prometheus text
// format (version 0.0.4).
type metrics struct {
	mu      sync.Mutex
	byCode  map[string]uint64
	buckets []uint64 // cumulative counts per latencyBuckets, then +Inf
	sum     float64
	count   uint64

	duplicates   atomic.Uint64 // calls answered from the ledger
	refused      atomic.Uint64 // bundles refused
	unauthorised atomic.Uint64 // requests without the token
	bundles      atomic.Int64  // bundles active
}

func (m *metrics) observe(code string, d time.Duration) {
	s := d.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byCode == nil {
		m.byCode = map[string]uint64{}
		m.buckets = make([]uint64, len(latencyBuckets)+1)
	}
	m.byCode[code]++
	for i, ub := range latencyBuckets {
		if s <= ub {
			m.buckets[i]++
		}
	}
	m.buckets[len(latencyBuckets)]++
	m.sum += s
	m.count++
}

func (x *Executor) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	m := &x.metrics
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintln(w, "# HELP crystal_star_executor_calls_total Tool calls finished, by result code (ok or the error code).")
	fmt.Fprintln(w, "# TYPE crystal_star_executor_calls_total counter")
	for _, code := range slices.Sorted(maps.Keys(m.byCode)) {
		fmt.Fprintf(w, "crystal_star_executor_calls_total{code=%q} %d\n", code, m.byCode[code])
	}
	fmt.Fprintln(w, "# HELP crystal_star_executor_call_duration_seconds Tool call latency on the executor.")
	fmt.Fprintln(w, "# TYPE crystal_star_executor_call_duration_seconds histogram")
	if m.buckets != nil {
		for i, ub := range latencyBuckets {
			fmt.Fprintf(w, "crystal_star_executor_call_duration_seconds_bucket{le=\"%g\"} %d\n", ub, m.buckets[i])
		}
		fmt.Fprintf(w, "crystal_star_executor_call_duration_seconds_bucket{le=\"+Inf\"} %d\n", m.buckets[len(latencyBuckets)])
	}
	fmt.Fprintf(w, "crystal_star_executor_call_duration_seconds_sum %g\n", m.sum)
	fmt.Fprintf(w, "crystal_star_executor_call_duration_seconds_count %d\n", m.count)
	gauge := func(name, help, typ string, v any) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s %v\n", name, help, name, typ, name, v)
	}
	gauge("crystal_star_executor_calls_in_flight", "Tool calls running now.", "gauge", x.calls.count())
	gauge("crystal_star_executor_duplicate_calls_total", "Calls whose id had been seen, answered without running again.", "counter", m.duplicates.Load())
	gauge("crystal_star_executor_bundles_refused_total", "Bundles refused: tampered, not granted or not remote-eligible.", "counter", m.refused.Load())
	gauge("crystal_star_executor_unauthorized_requests_total", "Requests refused for want of the bearer token.", "counter", m.unauthorised.Load())
	gauge("crystal_star_executor_bundles_active", "Bundles activated.", "gauge", m.bundles.Load())
	draining := 0
	if x.draining.Load() {
		draining = 1
	}
	gauge("crystal_star_executor_draining", "1 once the executor stopped admitting calls.", "gauge", draining)
}
