package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// BenchmarkH24_2_Framing reads hover requests through the server's framing
// (frameStream), interleaved with jsonrpc2.VSCodeObjectCodec (the raw
// baseline it replaced) in the same loop, and reports the ratio.
func BenchmarkH24_2_Framing(b *testing.B) {
	msg := []byte(frame(`{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/plug/plugin.star"},"position":{"line":0,"character":21}}}`))
	const batch = 100
	input := bytes.Repeat(msg, batch)
	var ours, codec time.Duration
	for b.Loop() {
		start := time.Now()
		f := newFrameStream(struct {
			io.Reader
			io.Writer
			io.Closer
		}{bytes.NewReader(input), io.Discard, io.NopCloser(nil)})
		for range batch {
			var m json.RawMessage
			if err := f.ReadObject(&m); err != nil {
				b.Fatal(err)
			}
		}
		ours += time.Since(start)
		start = time.Now()
		r := bufio.NewReader(bytes.NewReader(input))
		for range batch {
			var m json.RawMessage
			if err := (jsonrpc2.VSCodeObjectCodec{}).ReadObject(r, &m); err != nil {
				b.Fatal(err)
			}
		}
		codec += time.Since(start)
	}
	n := float64(b.N * batch)
	b.ReportMetric(float64(ours.Nanoseconds())/n, "frameStream-ns/msg")
	b.ReportMetric(float64(codec.Nanoseconds())/n, "codec-ns/msg")
	b.ReportMetric(float64(ours)/float64(codec), "frameStream/codec")
}
