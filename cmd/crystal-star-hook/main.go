// Command crystal-star-hook is the fast path of `crystal-star hook` and
// `crystal-star statusline` for agent hosts (docs/agent-hosts.md): it links
// only starhost/agenthosts/live, so it starts in a few milliseconds where
// the full CLI's package initialisation takes tens. It forwards the event
// on stdin to the session's live crystal-star; when there is none it runs
// the full `crystal-star` beside it (or on $PATH) with the same arguments
// and the same stdin, so the event is served one-shot exactly as before.
// If that cannot run either, a tool-call event is denied (fail-closed).
//
//	crystal-star-hook [GLOBAL FLAGS] hook claude-code|gemini-cli [--fail-open] [--timeout D]
//	crystal-star-hook [GLOBAL FLAGS] statusline claude-code
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/crystal-star/crystal-star/starhost/agenthosts/live"
)

const maxInput = 16 << 20

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	data, err := io.ReadAll(io.LimitReader(stdin, maxInput))
	if err != nil {
		fmt.Fprintf(stderr, "crystal-star-hook: %v\n", err)
		return 2
	}
	if req, ok := request(args); ok && os.Getenv("CRYSTAL_LIVE") != "0" {
		req.Input = data
		if req.Timeout <= 0 {
			req.Timeout = 20 * time.Second // the full CLI's default
		}
		ctx, cancel := context.WithTimeout(context.Background(), req.Timeout)
		rep, err := live.Forward(ctx, live.Keys(req.Agent, data), req)
		cancel()
		if err == nil {
			stdout.Write(rep.Stdout)
			io.WriteString(stderr, rep.Stderr)
			return rep.Exit
		}
		if !errors.Is(err, live.ErrNoLive) {
			fmt.Fprintf(stderr, "note: %v; serving the event from disk\n", err)
		}
	}
	return oneShot(args, data, stdout, stderr)
}

// request reads the command line: the command and agent host after the
// global flags, and --fail-open. ok is false for anything else, which the
// full CLI answers.
func request(args []string) (live.Request, bool) {
	var req live.Request
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--home", "--workspace", "--dev", "--color":
			i++ // its value
		case "hook", "statusline":
			if req.Command != "" || i+1 >= len(args) {
				return req, false
			}
			req.Command, req.Agent = a, args[i+1]
			i++
		case "--fail-open":
			req.FailOpen = true
		case "--timeout":
			if i+1 < len(args) {
				req.Timeout, _ = time.ParseDuration(args[i+1])
			}
			i++
		default:
			if req.Command == "" {
				return req, false // a flag the fast path does not know
			}
		}
	}
	known := req.Agent == "claude-code" || req.Command == "hook" && req.Agent == "gemini-cli"
	return req, known // the full CLI says what is wrong with anything else
}

// oneShot runs the full CLI on the event. When it cannot start, a tool
// call is denied in the agent host's shape and every other event goes on.
func oneShot(args []string, data []byte, stdout, stderr io.Writer) int {
	cmd := exec.Command(fullCLI(), args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(data), stdout, stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	why := fmt.Sprintf("crystal-star-hook could not run crystal-star: %v", err)
	var ev struct {
		Event string `json:"hook_event_name"`
	}
	_ = json.Unmarshal(data, &ev)
	switch ev.Event {
	case "PreToolUse":
		b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse",
			"permissionDecision": "deny", "permissionDecisionReason": why + " (fail-closed; see docs/agent-hosts.md)"}})
		fmt.Fprintf(stdout, "%s\n", b)
	case "BeforeTool":
		b, _ := json.Marshal(map[string]any{"decision": "deny", "reason": why + " (fail-closed; see docs/agent-hosts.md)"})
		fmt.Fprintf(stdout, "%s\n", b)
	default:
		fmt.Fprintf(stderr, "note: %s\n", why)
	}
	return 0
}

// fullCLI is $CRYSTAL_STAR, else the crystal-star beside this program,
// else crystal-star on $PATH.
func fullCLI() string {
	if p := os.Getenv("CRYSTAL_STAR"); p != "" {
		return p
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "crystal-star")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "crystal-star"
}
