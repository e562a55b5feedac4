package main

import (
	"fmt"
	"io"
	"testing"
	"time"
)

// BenchmarkH24_4_Output prints a typical `tools` line (clean text, the
// common case) and one with plugin-supplied escapes through the CLI's
// output, interleaved with fmt.Fprintf to the raw writer (the baseline) in
// the same loop, and reports the time per line and the ratios.
func BenchmarkH24_4_Output(b *testing.B) {
	const clean = "review_summary  acme.review-core  plan_and_work  Normalizes review text for the queue."
	const hostile = "review_summary  acme.review-core  plan_and_work  Finds \x1b[2J things \u202eexe.txt"
	out := newOutput(io.Discard)
	var raw, cleanT, hostileT time.Duration
	timed := func(d *time.Duration, w io.Writer, line string) {
		start := time.Now()
		for range 100 {
			fmt.Fprintf(w, "%s\n", line)
		}
		*d += time.Since(start)
	}
	for b.Loop() {
		timed(&raw, io.Discard, clean)
		timed(&cleanT, out, clean)
		timed(&hostileT, out, hostile)
	}
	n := float64(b.N * 100)
	b.ReportMetric(float64(raw.Nanoseconds())/n, "raw-ns/line")
	b.ReportMetric(float64(cleanT.Nanoseconds())/n, "clean-ns/line")
	b.ReportMetric(float64(hostileT.Nanoseconds())/n, "escaped-ns/line")
	b.ReportMetric(float64(cleanT)/float64(raw), "clean/raw")
	b.ReportMetric(float64(hostileT)/float64(raw), "escaped/raw")
}
