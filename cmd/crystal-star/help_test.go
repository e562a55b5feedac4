package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestNearest pins what "did you mean" suggests: a typo (one or two edits,
// a transposition counting as one) or the only name a prefix starts; never
// a far-off name or the word itself.
func TestNearest(t *testing.T) {
	names := []string{"check", "plugins", "tools", "trust", "status", "dev", "fmt"}
	for _, c := range []struct{ word, want string }{
		{"chek", "check"},
		{"chekc", "check"},
		{"plguins", "plugins"},
		{"tols", "tools"},
		{"stat", "status"},
		{"dve", "dev"},
		{"zzzzzz", ""},
		{"check", ""},
		{"", ""},
	} {
		if got := nearest(c.word, names); got != c.want {
			t.Errorf("nearest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

// TestEveryCommandHasHelp proves each command of the table says what help
// shows: a summary and one example, and flags with help text.
func TestEveryCommandHasHelp(t *testing.T) {
	for _, c := range commands {
		if c.summary == "" || c.example == "" {
			t.Errorf("command %s needs a summary and an example", c.name)
		}
		for _, f := range c.flags {
			if f.help == "" {
				t.Errorf("flag --%s of %s has no help", f.name, c.name)
			}
		}
		if c != &helpCmd && c.run == nil {
			t.Errorf("command %s has no runner", c.name)
		}
	}
}

// TestHelpExamplesRun runs every command's help example as a newcomer would
// from the repository root (here a copy of its plugins directory, so that
// `new` and `install` change nothing in the tree), with empty input: none
// may be a usage error (exit 2), which is what an example naming a plugin,
// flag or argument that does not exist gives. Exit 1 is an honest failure
// of the example's own work (trust grant of a plugin not yet installed).
func TestHelpExamplesRun(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "plugins"), os.DirFS(filepath.Join(root, "plugins"))); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("CRYSTAL_HOME", filepath.Join(dir, "home"))
	for _, c := range commands {
		args, err := shellWords(c.example)
		if err != nil {
			t.Fatalf("%s: example %q: %v", c.name, c.example, err)
		}
		if c == &executorCmd {
			runServingExample(t, args)
			continue
		}
		var stdout, stderr strings.Builder
		code := run(args, strings.NewReader(exampleStdin[c.name]), &stdout, &stderr)
		t.Logf("crystal-star %s: exit %d\n%s%s", c.example, code, stdout.String(), stderr.String())
		if code == 2 || (code != 0 && !exampleMayFail[c.name]) {
			t.Errorf("crystal-star %s: exit %d\n%s", c.example, code, stderr.String())
		}
	}
}

// exampleStdin is what an example reads on stdin, for the commands that
// serve an agent host's JSON (docs/agent-hosts.md).
var exampleStdin = map[string]string{
	"hook":       `{"session_id":"example","cwd":".","hook_event_name":"PreToolUse","tool_name":"bash","tool_input":{"command":"rm -rf build"}}`,
	"statusline": `{"session_id":"example","cwd":".","model":{"id":"claude-opus-4-1","display_name":"Opus"}}`,
}

// exampleMayFail are the commands whose example fails (exit 1) on a fresh
// home: trust grant names a plugin that is not installed yet.
var exampleMayFail = map[string]bool{"trust": true}

// TestCLIDocListsEveryCommand keeps docs/cli.md's command table complete:
// every command of the table in main.go has a row.
func TestCLIDocListsEveryCommand(t *testing.T) {
	data, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows strings.Builder // the first column of every table row
	for _, line := range strings.Split(string(data), "\n") {
		if cells := strings.Split(line, " | "); strings.HasPrefix(line, "| ") && len(cells) > 1 {
			rows.WriteString(cells[0] + "\n")
		}
	}
	for _, c := range commands {
		if !regexp.MustCompile("`" + c.name + "[` ]").MatchString(rows.String()) {
			t.Errorf("docs/cli.md's command table has no row for %s", c.name)
		}
	}
}

// runServingExample runs the example of a command that serves until a
// signal (executor): once it says it serves, the process sends itself
// SIGTERM, which the command handles; it must then exit 0.
func runServingExample(t *testing.T, args []string) {
	t.Helper()
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(args, strings.NewReader(""), io.Discard, stderr) }()
	for !strings.Contains(stderr.String(), "serving on") {
		select {
		case code := <-done:
			t.Fatalf("crystal-star %s: exit %d before serving\n%s", strings.Join(args, " "), code, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 {
		t.Errorf("crystal-star %s: exit %d after SIGTERM\n%s", strings.Join(args, " "), code, stderr.String())
	}
}

// syncBuffer is a strings.Builder safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
