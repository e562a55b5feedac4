package mcpserve_test

import (
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// Issue 11, points 3 and 5 over MCP: in process isolation a memory bomb in
// a tool ends that call with the cause, the MCP server keeps serving, and
// the client sees the same message as the CLI.
func TestMCPProcessIsolationMemoryBomb(t *testing.T) {
	t.Setenv("CRYSTAL_ISOLATION", "process")
	cs, _, _, _ := startMCPWith(t, starhost.Work,
		`    tool(name = "bomb", description = "allocates 16 GB", catalogs = "work", run = lambda ctx, args: str(len([0] * 1000000000))),`+"\n")
	text, res := callText(t, cs, "bomb", map[string]any{})
	if !res.IsError || !strings.Contains(text, "memory_limit 512MiB exceeded") {
		t.Fatalf("bomb = %q (error %v), want the memory limit named", text, res.IsError)
	}
	if names := toolNames(t, cs); len(names) == 0 {
		t.Fatal("the server stopped listing tools after the bomb")
	}
}
