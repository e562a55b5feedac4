package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// terminal is the operator's side of a pseudo-terminal running the dev
// console: it types keys and waits for the screen to show a pattern.
type terminal struct {
	t    *testing.T
	ptmx *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	seen int // bytes of out already matched by expect
}

// startDev runs "crystal-star dev PLUGIN --home HOME" on a fresh
// pseudo-terminal 200 columns wide, skipping the test where the machine
// has none, and returns the operator's side; the command's exit code
// arrives on code. The terminal is closed as the test ends.
func startDev(t *testing.T, plugin, home string) (term *terminal, code <-chan int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() {
		tty.Close()
		ptmx.Close()
	})
	pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 200})
	term = &terminal{t: t, ptmx: ptmx}
	go term.read()
	exit := make(chan int, 1)
	go func() { exit <- run([]string{"dev", plugin, "--home", home}, tty, tty, tty) }()
	return term, exit
}

func (term *terminal) read() {
	buf := make([]byte, 4096)
	for {
		n, err := term.ptmx.Read(buf)
		term.mu.Lock()
		term.out.Write(buf[:n])
		term.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (term *terminal) typeKeys(keys string) {
	term.t.Helper()
	if _, err := term.ptmx.WriteString(keys); err != nil {
		term.t.Fatal(err)
	}
}

// expect waits until the output after the last match contains pattern.
// The deadline only bounds a broken run; nothing is timed.
func (term *terminal) expect(pattern string) {
	term.t.Helper()
	re := regexp.MustCompile(pattern)
	for deadline := time.Now().Add(10 * time.Second); ; {
		term.mu.Lock()
		rest := term.out.Bytes()[term.seen:]
		loc := re.FindIndex(rest)
		if loc != nil {
			term.seen += loc[1]
		}
		out := term.out.String()
		term.mu.Unlock()
		if loc != nil {
			return
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("the terminal never showed %q; it shows:\n%q", pattern, out)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDevConsoleTerminal drives the dev console on a real pseudo-terminal:
// Tab completes console verbs, plugin commands, tool names and plugin ids,
// Up recalls the last line, the history is kept in {home}/dev_history,
// "did you mean" answers an unknown command or tool, and notes are
// coloured (--color=auto on a terminal).
func TestDevConsoleTerminal(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	plugin := filepath.Join(dir, "echo")
	testkit.Plugin{ID: "acme.echo", Source: `
print("loading")

def echo(ctx, args):
    return "echo:" + args.get("text", "")

contribute(
    tools = [tool(name = "echo_text", catalogs = "work", run = echo)],
    commands = [command(name = "shout", run = lambda ctx, inv: inv.args.upper())],
)
`}.Write(t, plugin)

	t.Setenv("NO_COLOR", "")
	term, code := startDev(t, plugin, home)
	term.expect(`plugin.star:2:6: \x1b\[1;36mnote\x1b\[0m: acme.echo: print: loading \[Print\]`)
	term.expect(`ready: 1 plugins, 1 active`)

	// Tab completes a console verb ...
	term.typeKeys("/too\t")
	term.expect(`/tools `)
	term.typeKeys("\r")
	term.expect(`echo_text \(acme.echo\) work`)

	// ... and a tool name after /call.
	term.typeKeys("/call ech\t")
	term.expect(`/call echo_text `)
	term.typeKeys(`{"text": "hi"}` + "\r")
	term.expect(`echo:hi`)

	// ... and a plugin command, and a plugin id after /reload.
	term.typeKeys("/sho\t")
	term.expect(`/shout `)
	term.typeKeys("hey\r")
	term.expect(`input: HEY`)
	term.typeKeys("/reload acme.e\t")
	term.expect(`/reload acme.echo `)
	term.typeKeys("\r")
	term.expect(`reload done`)

	// Up recalls the last line; Enter runs it again.
	term.typeKeys("/call echo_text {\"text\": \"hi\"}\r")
	term.expect(`echo:hi`)
	term.typeKeys("\x1b[A")
	term.expect(`/call echo_text \{"text": "hi"\}`)
	term.typeKeys("\r")
	term.expect(`echo:hi`)

	// Left-arrow editing: insert a character in the middle of the line.
	term.typeKeys("/call echo_text {\"text\": \"hX\"}\x1b[D\x1b[D\x1b[Di\r")
	term.expect(`echo:hiX`)

	// did you mean, for a console command and a tool.
	term.typeKeys("/tols\r")
	term.expect(`did you mean /tools\?`)
	term.typeKeys("/call echo_txet\r")
	term.expect(`did you mean echo_text\?`)

	term.typeKeys("/quit\r")
	term.expect(`stopped in`)
	if c := <-code; c != 0 {
		t.Fatalf("dev exited %d", c)
	}
	history, err := os.ReadFile(filepath.Join(home, historyFileName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(history), "/call echo_text {\"text\": \"hi\"}\n") || !strings.Contains(string(history), "/quit\n") {
		t.Errorf("history file holds:\n%s", history)
	}
}
