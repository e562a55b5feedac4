package trust

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Environment of a helper child process: TestMain performs one Grant and exits.
const (
	helperEnv     = "CRYSTAL_TRUST_HELPER" // "grant"
	helperFileEnv = "CRYSTAL_TRUST_FILE"   // the trust file
	helperIDEnv   = "CRYSTAL_TRUST_ID"     // the id to grant fpA to
	helperGoEnv   = "CRYSTAL_TRUST_GO"     // a file whose appearance starts every child at once
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "grant" {
		os.Exit(helperGrant())
	}
	os.Exit(m.Run())
}

// helperGrant waits for the start signal, then grants; it is the body of a child process.
func helperGrant() int {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(os.Getenv(helperGoEnv)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "helper: no start signal")
			return 2
		}
		time.Sleep(time.Millisecond)
	}
	if err := NewStore(os.Getenv(helperFileEnv)).Grant(os.Getenv(helperIDEnv), fpA, time.Now()); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	return 0
}

func TestDC19_ConcurrentProcessesNeverLoseAGrant(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(filepath.Join(dir, "home", "plugin-trust.json"))
	start := filepath.Join(dir, "go")
	var ids []string
	var children []*exec.Cmd
	for i := range 8 {
		id := fmt.Sprintf("proc.p%d", i)
		ids = append(ids, id)
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), helperEnv+"=grant", helperFileEnv+"="+s.Path(),
			helperIDEnv+"="+id, helperGoEnv+"="+start)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children = append(children, cmd)
	}
	if err := os.WriteFile(start, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, cmd := range children {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	assertGrantedAll(t, s, ids)
	if entries, err := os.ReadDir(filepath.Dir(s.Path())); err != nil || len(entries) != 2 {
		t.Errorf("home holds %v (%v), want the trust file and its lock", entries, err)
	}
}
