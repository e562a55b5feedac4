package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	f := frame{Kind: kindCall, ID: 1<<40 + 7, Method: "tool", Body: []byte(`{"index":1}`)}
	buf, err := appendFrame(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := newReader(bytes.NewReader(buf)).Read()
	if err != nil || got.Kind != f.Kind || got.ID != f.ID || got.Method != f.Method || !bytes.Equal(got.Body, f.Body) {
		t.Fatalf("Read = %+v, %v; want %+v", got, err, f)
	}
}

func TestGarbageFrames(t *testing.T) {
	for name, in := range map[string]string{
		"too long":     "\xff\xff\xff\xff",
		"short header": "\x00\x00\x00\x02ab",
		"unknown kind": "\x00\x00\x00\x0a\x09\x00\x00\x00\x00\x00\x00\x00\x01\x00",
		"method past":  "\x00\x00\x00\x0a\x01\x00\x00\x00\x00\x00\x00\x00\x01\x05",
		"kind zero":    "\x00\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00",
	} {
		_, err := newReader(strings.NewReader(in)).Read()
		if !errors.Is(err, ErrGarbage) {
			t.Errorf("%s: err = %v, want garbage", name, err)
		}
	}
	if _, err := newReader(strings.NewReader("\x00\x00\x00\x0a\x01")).Read(); err != io.ErrUnexpectedEOF {
		t.Errorf("cut frame: err = %v, want io.ErrUnexpectedEOF", err)
	}
}

// FuzzDecode: no input panics the frame reader; whatever it accepts
// encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	seed, _ := appendFrame(nil, frame{Kind: kindReply, ID: 3, Method: "m", Body: []byte("{}")})
	f.Add(seed)
	f.Add([]byte("\x00\x00\x00\x0a\x09\x00\x00\x00\x00\x00\x00\x00\x01\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newReader(bytes.NewReader(data))
		var consumed int
		for {
			fr, err := r.Read()
			if err != nil {
				return
			}
			again, err := appendFrame(nil, fr)
			if err != nil {
				t.Fatalf("re-encoding an accepted frame: %v", err)
			}
			if !bytes.Equal(again, data[consumed:consumed+len(again)]) {
				t.Fatalf("frame %+v re-encodes as %q, read from %q", fr, again, data[consumed:consumed+len(again)])
			}
			consumed += len(again)
		}
	})
}

// TestConnCallsBothWays: a call may call back the other side while it runs,
// and Close fails calls in flight with its cause.
func TestConnCallsBothWays(t *testing.T) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	var a, b *Conn
	a = NewConn(ar, aw, func(ctx context.Context, method string, body []byte) (any, error) {
		return "host:" + string(body), nil
	}, nil)
	b = NewConn(br, bw, func(ctx context.Context, method string, body []byte) (any, error) {
		if method == "hang" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		var s string
		if err := b.Call(ctx, "svc", "x", &s); err != nil {
			return nil, err
		}
		return method + "+" + s, nil
	}, nil)
	go a.Serve()
	go b.Serve()
	var got string
	if err := a.Call(context.Background(), "tool", nil, &got); err != nil || got != `tool+host:"x"` {
		t.Fatalf("Call = %q, %v", got, err)
	}
	cause := errors.New("the worker died")
	done := make(chan error)
	go func() { done <- a.Call(context.Background(), "hang", nil, nil) }()
	waitInFlight(a, 1)
	a.Close(cause)
	if err := <-done; err != cause {
		t.Fatalf("a call in flight after Close = %v, want %v", err, cause)
	}
	if err := a.Call(context.Background(), "tool", nil, nil); err != cause {
		t.Fatalf("a call after Close = %v, want %v", err, cause)
	}
}

type originKey struct{}

// TestConnCallWithinCarriesTheCallersValues: a callback made while serving
// a call (kindCallWithin) is served with the values of the context that
// call was made with — an MCP request's session for a sampling model call —
// and a call made outside one is served without them.
func TestConnCallWithinCarriesTheCallersValues(t *testing.T) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	var b *Conn
	a := NewConn(ar, aw, func(ctx context.Context, method string, body []byte) (any, error) {
		v, _ := ctx.Value(originKey{}).(string)
		return v, nil
	}, nil)
	b = NewConn(br, bw, func(ctx context.Context, method string, body []byte) (any, error) {
		if method == "detached" {
			ctx = context.Background() // not within the call
		}
		var s string
		err := b.Call(ctx, "model", nil, &s)
		return s, err
	}, nil)
	go a.Serve()
	go b.Serve()
	defer a.Close(nil)
	defer b.Close(nil)
	ctx := context.WithValue(context.Background(), originKey{}, "request 7")
	for method, want := range map[string]string{"tool": "request 7", "detached": ""} {
		var got string
		if err := a.Call(ctx, method, nil, &got); err != nil || got != want {
			t.Errorf("%s: the callback saw %q, %v; want %q", method, got, err, want)
		}
	}
}
