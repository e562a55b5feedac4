package starhost

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// startWith starts a host in process isolation whose workers are started
// by command, and returns Start's error and the tool call's result.
func startWith(t *testing.T, command func() (*exec.Cmd, error)) (error, ToolResult) {
	t.Helper()
	testWorkerCommand = command
	t.Cleanup(func() { testWorkerCommand = nil })
	dir := filepath.Join(t.TempDir(), "good")
	testkit.Plugin{ID: "acme.good", Source: `contribute(tools = [tool(name = "ping", description = "d", catalogs = "work", run = lambda ctx, args: "pong")])`}.Write(t, dir)
	ws := t.TempDir()
	h, err := New(Options{Home: filepath.Join(ws, "home"), Workspace: ws, Dev: []string{dir}, Isolation: IsolationProcess})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	err = h.Start(context.Background())
	return err, h.Session().Thread("").Tools(context.Background(), Work).Invoke(context.Background(), "ping", []byte(`{}`))
}

// Issue 26, point 3: when no worker can start, Start says so with the
// cause; the ServeWorkerIfChild hint only when the child never answered
// the handshake.
func TestH26_3_StartFailsWhenNoWorkerStarts(t *testing.T) {
	err, res := startWith(t, func() (*exec.Cmd, error) {
		return exec.Command("sh", "-c", `echo "crystal-star worker: cannot apply memory_limit: operation not permitted" >&2; exit 3`), nil
	})
	if !errors.Is(err, Code(contrib.WorkerFailed)) || !strings.Contains(err.Error(), "no plugin worker could start") ||
		!strings.Contains(err.Error(), "cannot apply memory_limit: operation not permitted") || strings.Contains(err.Error(), "ServeWorkerIfChild") {
		t.Fatalf("Start = %v, want WorkerFailed naming the worker's cause, no hint", err)
	}
	if res.Error == nil {
		t.Fatalf("the tool = %+v, want a failure", res)
	}

	err, _ = startWith(t, func() (*exec.Cmd, error) { return exec.Command("true"), nil })
	if err == nil || !strings.Contains(err.Error(), "ServeWorkerIfChild") {
		t.Fatalf("Start with a binary that never answers = %v, want the hint", err)
	}
}

// Workers that start leave Start's error nil.
func TestH26_3_StartSucceedsWithWorkers(t *testing.T) {
	err, res := startWith(t, nil)
	if err != nil || res.Error != nil || res.Text != "pong" {
		t.Fatalf("Start = %v, call = %+v", err, res)
	}
}
