//go:build linux

package wire

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// TestH26_2_SpinningReadKeepsAPipesRules: a pipe read that tries again
// before it parks (spinFile) still reads what comes late, still ends at a
// read deadline (how a caller who gives up stops its read), and still
// sees the end of the stream.
func TestH26_2_SpinningReadKeepsAPipesRules(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, ok := spinning(r).(spinFile)
	if !ok {
		t.Fatalf("spinning(pipe) = %T, want spinFile", spinning(r))
	}
	go func() {
		time.Sleep(20 * time.Millisecond) // past the spin: the read waits in the poller
		_, _ = w.Write([]byte("late"))
	}()
	buf := make([]byte, 16)
	n, err := s.Read(buf)
	if err != nil || string(buf[:n]) != "late" {
		t.Fatalf("Read = %q, %v; want \"late\"", buf[:n], err)
	}
	if err := s.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	_ = s.SetReadDeadline(time.Time{})
	w.Close()
	if _, err := s.Read(buf); err != io.EOF {
		t.Fatalf("Read at the end: %v, want io.EOF", err)
	}
	if _, ok := spinning(io.MultiReader()).(spinFile); ok {
		t.Fatal("a reader that is not a file was wrapped")
	}
}
