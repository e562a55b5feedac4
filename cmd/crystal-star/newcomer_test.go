package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/plugintest"
)

// The tests of this file hold what a newcomer met following README.md and
// docs/ in a fresh clone.

// TestReadme_FreshCloneHasNoWorkspaceState: the README's main command,
// `crystal-star dev plugins` in the clone, uses the clone as its workspace.
// A tracked `.crystal/` (data written by running the example plugins there)
// made every fresh clone start with a DataDirRefused error for acme.notes:
// data in .crystal/data/plugins/notes that no owner record covers. The
// workspace state is the user's: it is neither tracked nor committable.
func TestReadme_FreshCloneHasNoWorkspaceState(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	out, err := exec.Command(git, "-C", root, "ls-files", "--", ".crystal").CombinedOutput()
	if err != nil {
		t.Skipf("not a git checkout: %v: %s", err, out)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("the repository tracks workspace state a fresh clone then starts with:\n%s", s)
	}
	// git check-ignore exits 0 when the path is ignored.
	if err := exec.Command(git, "-C", root, "check-ignore", "-q", ".crystal/data/plugins/notes/x").Run(); err != nil {
		t.Errorf(".gitignore does not ignore the clone's own .crystal/ (git check-ignore: %v)", err)
	}
}

// TestAgentHosts_SetupRefusesGoRunBuild: `go run ./cmd/crystal-star setup
// claude-code`, the README's usual way to run the CLI, wrote go run's
// temporary build into the hooks; the program is deleted when it exits, and
// a hook command that cannot start lets the tool call through.
func TestAgentHosts_SetupRefusesGoRunBuild(t *testing.T) {
	tmp := filepath.Join(t.TempDir(), "go-build123", "b001", "exe", "crystal-star")
	arg0 := os.Args[0]
	os.Args[0] = tmp
	defer func() { os.Args[0] = arg0 }()
	for _, host := range []string{"claude-code", "gemini-cli"} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"--workspace", t.TempDir(), "setup", host, "--dry-run"}, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "go run's temporary build") || !strings.Contains(stderr.String(), "go install ./cmd/crystal-star") {
			t.Errorf("setup %s from go run's build: exit %d\nstdout: %s\nstderr: %s", host, code, stdout.String(), stderr.String())
		}
		if strings.Contains(stdout.String(), tmp) {
			t.Errorf("setup %s wrote the temporary build into the settings:\n%s", host, stdout.String())
		}
	}
	if goRunBuild(filepath.Join(t.TempDir(), "bin", "crystal-star")) {
		t.Error("an installed crystal-star counts as go run's build")
	}
}

// TestAgentHosts_SetupForwardsOnlyToItself: the forwarder falls back to the
// crystal-star beside it, so setup writes crystal-star-hook into the hooks
// only when this program is that crystal-star. A renamed copy (go build -o
// cs) beside a forwarder wrote hooks whose one-shot path found no
// crystal-star and denied every tool call.
func TestAgentHosts_SetupForwardsOnlyToItself(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crystal-star-hook"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	arg0 := os.Args[0]
	defer func() { os.Args[0] = arg0 }()
	for name, want := range map[string]string{"cs": "cs", "crystal-star": "crystal-star-hook"} {
		os.Args[0] = filepath.Join(dir, name)
		var stdout, stderr bytes.Buffer
		code := run([]string{"--workspace", t.TempDir(), "setup", "claude-code", "--dry-run"}, strings.NewReader(""), &stdout, &stderr)
		hook := `"command": "` + filepath.Join(dir, want) + ` hook claude-code"`
		if code != 0 || !strings.Contains(stdout.String(), hook) {
			t.Errorf("setup run as %s: exit %d, want the hooks to run %s\nstdout: %s\nstderr: %s", name, code, want, stdout.String(), stderr.String())
		}
	}
}

// TestNew_ScaffoldCountsPerSession: the plugin `crystal-star new` writes
// shows "People greeted this session"; it counted every session's greetings
// in one ctx.store key, so an embedder's second session showed the first's.
func TestNew_ScaffoldCountsPerSession(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hello")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"new", "acme.hello", "--dir", dir}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("new: exit %d: %s", code, stderr.String())
	}
	h := plugintest.NewHost(t, dir, plugintest.Options{})
	ctx := context.Background()
	session := func(id string) *starhost.Session {
		s, err := h.Host.NewSession(ctx, starhost.SessionOptions{Facts: starhost.Facts{SessionID: id, Mode: "work"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.End(ctx) })
		return s
	}
	greet := func(s *starhost.Session) {
		t.Helper()
		if res := s.Thread("").Tools(ctx, starhost.Work).Invoke(ctx, "hello_greet", []byte(`{"name": "Ada"}`)); !res.OK() {
			t.Fatalf("hello_greet: %v", res.Err())
		}
	}
	a, b := session("a"), session("b")
	greet(a)
	greet(a)
	greet(b)
	for s, want := range map[*starhost.Session]string{a: "2", b: "1"} {
		id := s.Facts().SessionID
		if got := s.RenderStatusLine([]string{"hello-greeted"}); got != want+" greeted" {
			t.Errorf("session %s's status shows %q, want %q", id, got, want+" greeted")
		}
		if got := s.Bind(ctx, "{{hello_greeted}}", starhost.SitePrompt); got != want {
			t.Errorf("session %s's placeholder binds %q, want %q", id, got, want)
		}
	}
}
