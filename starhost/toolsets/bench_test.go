package toolsets_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/toolsets"
)

// BenchmarkToolSetCall is the cost of one call to an MCP tool set's tool
// through a snapshot (JSON-RPC over an in-memory pipe, both ends in this
// process) against an external Go tool of the same host: the price of the
// MCP hop itself, MC7.
func BenchmarkToolSetCall(b *testing.B) {
	home := b.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("[tool_sets.srv]\ncommand = [\"x\"]\n"), 0o644)
	direct := starhost.ExternalTool{Name: "direct", Catalogs: starhost.Work,
		Run: func(context.Context, any) starhost.ToolResult { return starhost.ToolResult{Text: "direct ok"} }}
	h, err := starhost.New(starhost.Options{Home: home, Workspace: b.TempDir(), External: []starhost.ExternalTool{direct}})
	if err != nil {
		b.Fatal(err)
	}
	h.Start(context.Background())
	defer h.Close(context.Background())
	f := &fakeSets{toolDefs: []string{"echo"}}
	r := toolsets.Start(context.Background(), h, toolsets.Options{Dial: f.dial})
	defer r.Close()
	snap := mainThread(h).Tools(context.Background(), starhost.Work)
	for _, name := range []string{"direct", "echo"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := snap.Invoke(context.Background(), name, nil); !res.OK() {
					b.Fatal(res.Error)
				}
			}
		})
	}
}
