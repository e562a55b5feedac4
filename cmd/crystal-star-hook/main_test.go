package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost/agenthosts/live"
)

const pre = `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`

func runHook(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// The event goes to the session's live crystal-star with its command,
// agent host and --fail-open.
func TestH27_3_ForwardsToTheLiveProcess(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("CRYSTAL_STAR", "/nonexistent/crystal-star")
	srv, err := live.Listen(context.Background(), "s1", func(_ context.Context, req live.Request) live.Reply {
		return live.Reply{Stdout: []byte(req.Command + " " + req.Agent + " " + string(req.Input)), Stderr: "note: live\n", Exit: 0}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	code, out, errOut := runHook(t, pre, "--dev", "/p", "hook", "claude-code", "--fail-open")
	if code != 0 || out != "hook claude-code "+pre || errOut != "note: live\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// Without a live process the full CLI serves the event, with the same
// arguments, stdin and exit code.
func TestH27_3_OneShotRunsTheFullCLI(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	cli := filepath.Join(t.TempDir(), "crystal-star")
	if err := os.WriteFile(cli, []byte("#!/bin/sh\ncat\necho \" args: $*\"\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CRYSTAL_STAR", cli)
	code, out, _ := runHook(t, pre, "hook", "claude-code")
	if code != 3 || out != pre+" args: hook claude-code\n" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
}

// When the full CLI cannot run, a tool call is denied; other events go on.
func TestH27_3_NoCLIFailsClosed(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("CRYSTAL_STAR", "/nonexistent/crystal-star")
	code, out, _ := runHook(t, pre, "hook", "claude-code")
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "fail-closed") {
		t.Fatalf("PreToolUse: exit %d, stdout %q", code, out)
	}
	code, out, _ = runHook(t, `{"session_id":"s1","hook_event_name":"BeforeTool","tool_name":"x"}`, "hook", "gemini-cli")
	if code != 0 || !strings.Contains(out, `"decision":"deny"`) {
		t.Fatalf("BeforeTool: exit %d, stdout %q", code, out)
	}
	code, out, errOut := runHook(t, `{"session_id":"s1","hook_event_name":"SessionStart"}`, "hook", "claude-code")
	if code != 0 || out != "" || !strings.Contains(errOut, "could not run crystal-star") {
		t.Fatalf("SessionStart: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// A Gemini CLI event goes to the live crystal-star its agent host started:
// the one listening under an ancestor of this process (live.Keys).
func TestH27_3_GeminiForwardsToTheAncestorsLiveProcess(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("CRYSTAL_STAR", "/nonexistent/crystal-star")
	key, ok := live.ParentKey()
	if !ok {
		t.Skip("processes have no live key here (no /proc)")
	}
	srv, err := live.Listen(context.Background(), key, func(_ context.Context, req live.Request) live.Reply {
		return live.Reply{Stdout: []byte(req.Command + " " + req.Agent + " " + string(req.Input))}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ev := `{"session_id":"g-1","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{}}`
	code, out, errOut := runHook(t, ev, "hook", "gemini-cli")
	if code != 0 || out != "hook gemini-cli "+ev {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
