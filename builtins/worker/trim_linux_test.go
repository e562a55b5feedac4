//go:build linux

package worker

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"testing"
)

// rssFile reads RssFile (kB) of this process: the resident pages backed by
// files, the executable's among them.
func rssFile(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := bytes.Fields(sc.Bytes()); len(f) >= 2 && string(f[0]) == "RssFile:" {
			n, _ := strconv.ParseInt(string(f[1]), 10, 64)
			return n
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// Issue 26, point 2: a worker gives back the executable's pages its
// initialisation touched; this test binary, like a worker, touched many.
func TestH26_2_DropInitPagesShrinksTheResidentSet(t *testing.T) {
	before := rssFile(t)
	dropInitPages()
	after := rssFile(t)
	if after >= before {
		t.Fatalf("RssFile %d kB before dropping the executable's pages, %d kB after: want less", before, after)
	}
	t.Logf("RssFile %d kB → %d kB", before, after)
}
