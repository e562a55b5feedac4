package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/starhost/agenthosts/live"
)

// BenchmarkH27_3_Hook is issue 27, point 3's latency: one Claude Code
// PreToolUse hook end to end, process start included, with the four
// example plugins — forwarded to the session's live `crystal-star mcp`,
// and one-shot (the hook process starts its own host). It runs the real
// binary: $CRYSTAL_STAR_BIN, else one built for the benchmark, and the
// forwarder crystal-star-hook ($CRYSTAL_STAR_HOOK_BIN, else built beside it).
// docs/performance.md records the p50.
func BenchmarkH27_3_Hook(b *testing.B) {
	bin := os.Getenv("CRYSTAL_STAR_BIN")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "crystal-star")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	fast := os.Getenv("CRYSTAL_STAR_HOOK_BIN")
	if fast == "" {
		fast = filepath.Join(filepath.Dir(bin), "crystal-star-hook")
		if out, err := exec.Command("go", "build", "-o", fast, "../crystal-star-hook").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	plugins, _ := filepath.Abs("../../plugins")
	dir := b.TempDir()
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(rt)
	env := append(os.Environ(), "CRYSTAL_HOME="+filepath.Join(dir, "home"), "XDG_RUNTIME_DIR="+rt, "CLAUDE_CODE_SESSION_ID=bench")
	event := `{"session_id":"bench","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}`
	// Gemini CLI: the live mcp listens under its parent, this process,
	// which is the hooks' parent too (live.Keys walks up to it).
	grt := filepath.Join(rt, "gemini")
	if err := os.Mkdir(grt, 0o700); err != nil {
		b.Fatal(err)
	}
	geminiEnv := append(os.Environ(), "CRYSTAL_HOME="+filepath.Join(dir, "home"), "XDG_RUNTIME_DIR="+grt, "GEMINI_CLI=1")
	geminiEvent := `{"session_id":"bench","transcript_path":"","cwd":"` + dir + `","hook_event_name":"BeforeTool","timestamp":"2026-12-02T07:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`
	run := func(b *testing.B, args ...string) {
		ds, cpu := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
		env, event := env, event
		if slices.Contains(args, "gemini-cli") {
			env, event = geminiEnv, geminiEvent
		}
		for b.Loop() {
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Env, cmd.Dir, cmd.Stdin = env, dir, strings.NewReader(event)
			t0 := time.Now()
			if _, err := cmd.Output(); err != nil {
				b.Fatalf("crystal-star %v: %v", args, err)
			}
			ds = append(ds, time.Since(t0))
			cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
		}
		slices.Sort(ds)
		slices.Sort(cpu)
		// Wall time depends on the machine's load; the process's CPU time
		// (user + system) much less.
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "p50-cpu-ms")
	}
	hook := func(b *testing.B) { run(b, bin, "--dev", plugins, "hook", "claude-code") }
	// The floor: the same binary started for a command that does nothing.
	b.Run("start-only", func(b *testing.B) { run(b, bin, "help", "hook") })
	b.Run("one-shot", hook)
	// startLive starts the live host an agent host would (`crystal-star mcp`
	// with env) and waits until ready says its socket is there; the
	// returned func stops it.
	startLive := func(b *testing.B, env []string, ready func() bool) func() {
		mcp := exec.Command(bin, "--dev", plugins, "mcp")
		mcp.Env, mcp.Dir = env, dir
		in, err := mcp.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		mcp.Stdout, mcp.Stderr = io.Discard, io.Discard
		if err := mcp.Start(); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < 500 && !ready(); i++ {
			time.Sleep(10 * time.Millisecond)
		}
		return func() { in.Close(); _ = mcp.Wait() }
	}
	b.Run("forwarded", func(b *testing.B) {
		sock := live.Path(filepath.Join(rt, "crystal-star"), "bench")
		defer startLive(b, env, func() bool { _, err := os.Stat(sock); return err == nil })()
		b.Run("crystal-star", hook)
		// crystal-star-hook, the forwarder setup installs when it is
		// beside crystal-star.
		b.Run("crystal-star-hook", func(b *testing.B) { run(b, fast, "--dev", plugins, "hook", "claude-code") })
	})
	// Gemini CLI's BeforeTool forwarded to the live mcp found among the
	// hook's ancestors.
	b.Run("forwarded-gemini", func(b *testing.B) {
		defer startLive(b, geminiEnv, func() bool {
			m, _ := filepath.Glob(filepath.Join(grt, "crystal-star", "*.sock"))
			return len(m) > 0
		})()
		b.Run("crystal-star-hook", func(b *testing.B) { run(b, fast, "--dev", plugins, "hook", "gemini-cli") })
	})
}
