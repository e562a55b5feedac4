package wire

import (
	"context"
	"net/rpc"
	"os"
	"testing"
)

// The transport choice of issue 11, point 9, measured: one call and its
// reply over a pair of OS pipes, with this package's frames and with
// net/rpc (gob) — the transport of hashicorp/go-plugin's netrpc protocol,
// without the yamux multiplexing go-plugin adds on top. Both ends run in
// this process, so the figures hold the protocol's cost and the pipe's, not
// a process switch. docs/isolation.md records them.

// EchoArgs are the arguments of the comparison's call.
type EchoArgs struct {
	Index int
	Args  []byte
}

// EchoReply is its answer.
type EchoReply struct{ Text string }

// Echo is the net/rpc service of the comparison.
type Echo struct{}

// Call answers like a trivial tool.
func (Echo) Call(in EchoArgs, out *EchoReply) error {
	out.Text = string(in.Args)
	return nil
}

func pipes(b *testing.B) (r1, w1, r2, w2 *os.File) {
	r1, w1, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	r2, w2, err = os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w1.Close(); w2.Close() })
	return r1, w1, r2, w2
}

func BenchmarkRoundTrip(b *testing.B) {
	args := EchoArgs{Index: 0, Args: []byte(`{"text":"hello"}`)}
	b.Run("frames", func(b *testing.B) {
		r1, w1, r2, w2 := pipes(b)
		server := NewConn(r1, w2, func(_ context.Context, _ string, body []byte) (any, error) {
			return EchoReply{Text: string(body)}, nil
		}, nil)
		client := NewConn(r2, w1, nil, nil)
		go server.Serve()
		go client.Serve()
		b.ReportAllocs()
		for b.Loop() {
			var out EchoReply
			if err := client.Call(context.Background(), MethodTool, args, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("netrpc", func(b *testing.B) {
		r1, w1, r2, w2 := pipes(b)
		srv := rpc.NewServer()
		if err := srv.Register(Echo{}); err != nil {
			b.Fatal(err)
		}
		go srv.ServeConn(duplex{r1, w2})
		client := rpc.NewClient(duplex{r2, w1})
		b.ReportAllocs()
		for b.Loop() {
			var out EchoReply
			if err := client.Call("Echo.Call", args, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// duplex joins the read end of one pipe and the write end of another.
type duplex struct{ r, w *os.File }

func (d duplex) Read(p []byte) (int, error)  { return d.r.Read(p) }
func (d duplex) Write(p []byte) (int, error) { return d.w.Write(p) }
func (d duplex) Close() error                { return d.r.Close() }
