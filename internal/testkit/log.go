package testkit

import (
	"fmt"
	"strings"
	"sync"
)

// Log records values a component reports (notes, diagnostics, events) in
// the order they arrive. Its zero value is empty and ready; it is safe for
// concurrent use, so a Log's Add can be the callback of concurrent work.
type Log[T any] struct {
	mu   sync.Mutex
	vals []T
}

// Add records v.
func (l *Log[T]) Add(v T) {
	l.mu.Lock()
	l.vals = append(l.vals, v)
	l.mu.Unlock()
}

// All returns a copy of what was recorded so far.
func (l *Log[T]) All() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]T(nil), l.vals...)
}

// Len is how many values were recorded.
func (l *Log[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.vals)
}

// Where returns the recorded values keep accepts, in order.
func (l *Log[T]) Where(keep func(T) bool) []T {
	var out []T
	for _, v := range l.All() {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// Reset forgets what was recorded.
func (l *Log[T]) Reset() {
	l.mu.Lock()
	l.vals = nil
	l.mu.Unlock()
}

// String is every recorded value on a line of its own (fmt's %v).
func (l *Log[T]) String() string {
	var b strings.Builder
	for _, v := range l.All() {
		fmt.Fprintln(&b, v)
	}
	return b.String()
}

// Services is a recording contrib.Services without the import (contrib's
// own tests use the kit): *Services[contrib.Diagnostic, contrib.Facts]
// records every note in its Log and answers Facts with Fixed (zero by
// default). Safe for concurrent use once built.
type Services[D, F any] struct {
	Log[D]
	// Facts is what Facts returns.
	Fixed F
}

// Note records d.
func (s *Services[D, F]) Note(d D) { s.Add(d) }

// Facts returns s.Fixed.
func (s *Services[D, F]) Facts() F { return s.Fixed }
