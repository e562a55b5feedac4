package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/crystal-star/crystal-star/starhost"
)

func TestMain(m *testing.M) {
	starhost.ServeWorkerIfChild() // scenarios in process isolation re-execute this binary as the worker
	if os.Getenv(benchMain) != "" {
		os.Exit(Main()) // the crystal-star of BenchmarkMCPStdioCall
	}
	testscript.Main(m, map[string]func(){
		"crystal-star": func() { os.Exit(Main()) },
	})
}

// TestScripts runs every end-to-end scenario in testdata/script against the
// real crystal-star binary. Each scenario gets a fresh $WORK with
// CRYSTAL_HOME=$WORK/home; the repository's plugins/ is reachable as
// $PLUGINS.
func TestScripts(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join(root, "testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("CRYSTAL_HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("PLUGINS", filepath.Join(root, "plugins"))
			// CRYSTAL_ISOLATION=process go test ./cmd/crystal-star runs every
			// scenario with its plugins in workers (docs/isolation.md).
			if v := os.Getenv("CRYSTAL_ISOLATION"); v != "" {
				env.Setenv("CRYSTAL_ISOLATION", v)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":  cmdExitcode,
			"waitmatch": cmdWaitmatch,
			"fakemodel": cmdFakeModel,
		},
	})
}

// cmdExitcode runs `exitcode N PROG ARGS...` and fails unless PROG exits
// with status N. Its stdout and stderr are kept for later assertions.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdWaitmatch runs `waitmatch FILE REGEX`: it polls FILE (relative to
// $WORK) for up to 10 seconds until a line matches REGEX. Scenarios use it
// to act only once a background dev console has reached a point (its --log).
func cmdWaitmatch(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitmatch FILE REGEX")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	if err != nil {
		ts.Fatalf("waitmatch: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(ts.MkAbs(args[0]))
		if re.Match(data) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitmatch: no line of %s matched %q within 10s; it holds:\n%s", args[0], args[1], data)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
