package statusline

import (
	"fmt"
	"testing"
)

func benchSink(b *testing.B) (*Board, *Sink) {
	b.Helper()
	board := NewBoard([]BuiltinField{{Name: "model"}})
	board.Declare("acme.x", []FieldDecl{{Name: "queue"}, {Name: "reviews"}, {Name: "branch"}})
	board.Subscribe(func() {})
	return board, board.NewSink("acme.x", "1", []string{"queue", "reviews", "branch"}, nil)
}

func reportSets(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sets/s")
}

// BenchmarkSetUnchanged is the hot path of a plugin timer re-sending the same
// text: it must not allocate.
func BenchmarkSetUnchanged(b *testing.B) {
	_, s := benchSink(b)
	s.Set("queue", "12 open · 3 mine")
	b.ReportAllocs()
	for b.Loop() {
		s.Set("queue", "12 open · 3 mine")
	}
	reportSets(b)
}

// BenchmarkSetUnchangedParallel measures unchanged sets from every core on
// one sink (they share the sink's lock).
func BenchmarkSetUnchangedParallel(b *testing.B) {
	_, s := benchSink(b)
	s.Set("queue", "12 open · 3 mine")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.Set("queue", "12 open · 3 mine")
		}
	})
	reportSets(b)
}

func BenchmarkSetChanged(b *testing.B) {
	_, s := benchSink(b)
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = fmt.Sprintf("%d open", i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.Set("queue", texts[i%len(texts)])
		i++
	}
	reportSets(b)
}

func BenchmarkRender(b *testing.B) {
	board, s := benchSink(b)
	s.Set("queue", "12 open")
	s.Set("reviews", "3 done")
	s.Set("branch", "main")
	l := Line{Names: []string{"model", "queue", "ghost", "reviews", "branch"}}
	host := func(string) string { return "gpt-5" }
	b.ReportAllocs()
	for b.Loop() {
		_ = board.Render(l, host)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "renders/s")
}

func BenchmarkSanitizeDirty(b *testing.B) {
	in := "\x1b[32m12 open\x1b[0m\t3 mine\n"
	b.ReportAllocs()
	for b.Loop() {
		_ = sanitizeText(in)
	}
}
