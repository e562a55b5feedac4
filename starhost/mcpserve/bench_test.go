package mcpserve_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/mcpserve"
)

const benchPlugin = `
def echo(ctx, args):
    return args["text"]

contribute(tools = [tool(name = "echo", description = "echoes text", catalogs = "work", run = echo, parameters = {
    "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"],
})])
`

type echoArgs struct {
	Text string `json:"text"`
}

// plainServer is the peer: a go-sdk server serving the same tool written
// in Go. typed uses the SDK's typed handler (schema inferred, arguments
// validated, as the SDK recommends); otherwise the raw handler decodes the
// arguments itself and validates nothing.
func plainServer(typed bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "1"}, nil)
	if !typed {
		s.AddTool(&mcp.Tool{Name: "echo", Description: "echoes text", InputSchema: map[string]any{"type": "object"}},
			func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in echoArgs
				if err := json.Unmarshal(r.Params.Arguments, &in); err != nil {
					return nil, err
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil
			})
		return s
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return s
}

func benchHost(b *testing.B) *mcpserve.Server {
	dir := b.TempDir()
	plugin := filepath.Join(dir, "dev", "bench")
	testkit.WriteFile(b, filepath.Join(plugin, "plugin.toml"), "id = \"acme.bench\"\nversion = \"1.0.0\"\n")
	testkit.WriteFile(b, filepath.Join(plugin, "plugin.star"), benchPlugin)
	h, err := starhost.New(starhost.Options{Home: filepath.Join(dir, "home"), Workspace: dir, Dev: []string{plugin}})
	if err != nil {
		b.Fatal(err)
	}
	if err := h.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	srv := mcpserve.New(h, mcpserve.Options{})
	b.Cleanup(func() { srv.Close(); h.Close(context.Background()) })
	return srv
}

// stdioPair serves over a pair of pipes, as a parent process and its
// stdio child would talk, and returns the client's transport.
func stdioPair(b *testing.B, serve func(ctx context.Context, r io.ReadCloser, w io.WriteCloser)) mcp.Transport {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { serve(ctx, sr, sw); close(done) }()
	b.Cleanup(func() { cw.Close(); cancel(); <-done })
	return &mcp.IOTransport{Reader: cr, Writer: cw}
}

// BenchmarkToolCall measures one tools/call round trip through the real
// transports, crystal-star (a Starlark tool behind mcpserve) beside a plain
// go-sdk server (the same tool in Go), and reports p50 and p99 latency.
func BenchmarkToolCall(b *testing.B) {
	transports := map[string]func(b *testing.B, server string) mcp.Transport{
		"stdio": func(b *testing.B, server string) mcp.Transport {
			if server == "crystal-star" {
				srv := benchHost(b)
				return stdioPair(b, func(ctx context.Context, r io.ReadCloser, w io.WriteCloser) { srv.ServeStdio(ctx, r, w) })
			}
			s := plainServer(server == "go-sdk")
			return stdioPair(b, func(ctx context.Context, r io.ReadCloser, w io.WriteCloser) {
				s.Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
			})
		},
		"http": func(b *testing.B, server string) mcp.Transport {
			var ts *httptest.Server
			if server == "crystal-star" {
				ts = httptest.NewServer(benchHost(b).Handler(mcpserve.HTTPOptions{}))
			} else {
				s := plainServer(server == "go-sdk")
				ts = httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
			}
			b.Cleanup(ts.Close)
			return &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}
		},
	}
	for _, tr := range []string{"stdio", "http"} {
		for _, server := range []string{"go-sdk", "go-sdk-raw", "crystal-star"} {
			b.Run(tr+"/"+server, func(b *testing.B) {
				t := transports[tr](b, server)
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), t, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					start := time.Now()
					res, err := cs.CallTool(context.Background(), params)
					lat = append(lat, time.Since(start))
					if err != nil || res.IsError {
						b.Fatalf("echo: %v %+v", err, res)
					}
				}
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			})
		}
	}
}
