//go:build linux

package live

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// A process's key is its pid and start time, read past a command name
// that holds spaces and parentheses: a pid reused by a later process names
// another socket.
func TestH27_3_ProcessKeyIsPidAndStartTime(t *testing.T) {
	// fields 3 … 22 of /proc/PID/stat after the name
	rest := " S 77 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 10"
	ppid, start, ok := parseStat("1234 (a) b) (c)" + rest)
	if !ok || ppid != 77 || start != "98765" {
		t.Fatalf("parseStat: ppid %d, start %q, %v; want 77, 98765", ppid, start, ok)
	}
	if _, _, ok := parseStat("1234 (short) S 77"); ok {
		t.Fatal("a truncated stat line parsed")
	}

	key, ppid, ok := processKey(os.Getpid())
	if !ok || ppid != os.Getppid() {
		t.Fatalf("processKey(self): %q, ppid %d, %v", key, ppid, ok)
	}
	b, _ := os.ReadFile("/proc/self/stat")
	_, start, _ = parseStat(string(b))
	if want := "process " + strconv.Itoa(os.Getpid()) + " " + start; key != want {
		t.Fatalf("key %q; want %q", key, want)
	}
	if k, ok := ParentKey(); !ok || k != Ancestors()[0] {
		t.Fatalf("ParentKey %q (%v) is not the first ancestor %q", k, ok, Ancestors())
	}

	// an ended process's key names nothing: the pid, reused, gets another
	cmd := exec.Command("cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	running, _, ok := processKey(cmd.Process.Pid)
	in.Close()
	_ = cmd.Wait()
	if !ok {
		t.Fatal("a running child has no key")
	}
	if k, _, ok := processKey(cmd.Process.Pid); ok && k == running {
		t.Fatalf("an ended process keeps its key %q", k)
	}
	if strings.Contains(strings.Join(Ancestors(), ","), key) {
		t.Fatal("a process is its own ancestor")
	}
}
