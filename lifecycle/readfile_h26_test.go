//go:build unix

package lifecycle

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestH26_5_ReadSmallReadsWhatOSReads: the plain-syscall reader returns
// what os.ReadFile returns for empty, small and large files, stops at
// room+1 bytes, refuses a FIFO without blocking on it, and says which file
// is missing.
func TestH26_5_ReadSmallReadsWhatOSReads(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 70000} {
		name := filepath.Join(dir, "f")
		data := bytes.Repeat([]byte("ab\n"), n)[:n]
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readCapped(name, 1<<20)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d bytes: got %d bytes, %v", n, len(got), err)
		}
		if n > 10 {
			got, err := readCapped(name, 10)
			if err != nil || len(got) != 11 || !bytes.Equal(got, data[:11]) {
				t.Errorf("%d bytes, room 10: got %d bytes, %v; want the first 11", n, len(got), err)
			}
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	if _, err := readCapped(fifo, 100); err == nil {
		t.Error("a FIFO was read")
	}
	if _, err := readCapped(filepath.Join(dir, "missing"), 100); !os.IsNotExist(err) {
		t.Errorf("missing file: %v, want not-exist", err)
	}
}
