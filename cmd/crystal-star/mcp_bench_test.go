package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchMain makes the test binary run Main (TestMain), so a benchmark can
// start the real `crystal-star mcp` as a subprocess.
const benchMain = "CRYSTAL_STAR_BENCH_MAIN"

const benchEcho = `
def echo(ctx, args):
    return args["text"]

contribute(tools = [tool(name = "echo", catalogs = "work", run = echo,
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})])
`

// BenchmarkMCPStdioCall is the reference of issue 11, point 9: the trivial
// tool called over `crystal-star mcp` on stdio by the official SDK client,
// in-process and in process isolation. docs/performance.md compares it with
// BenchmarkIsolationInvoke (starhost).
func BenchmarkMCPStdioCall(b *testing.B) {
	dir := b.TempDir()
	plugin := filepath.Join(dir, "echo")
	testkit.WriteFile(b, filepath.Join(plugin, "plugin.toml"), "id = \"bench.echo\"\nversion = \"1.0.0\"\n")
	testkit.WriteFile(b, filepath.Join(plugin, "plugin.star"), benchEcho)
	for _, mode := range []string{"in_process", "process"} {
		b.Run(mode, func(b *testing.B) {
			cmd := exec.Command(os.Args[0], "--dev", plugin, "--workspace", dir, "mcp")
			cmd.Env = append(os.Environ(), benchMain+"=1", "CRYSTAL_HOME="+filepath.Join(dir, "home"), "CRYSTAL_ISOLATION="+mode)
			client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
			cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}
			ds := make([]time.Duration, 0, b.N)
			for b.Loop() {
				t0 := time.Now()
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					b.Fatalf("call: %v %+v", err, res)
				}
				ds = append(ds, time.Since(t0))
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns")
		})
	}
}
