package wire

import (
	"context"
	"io"
	"testing"
)

// TestH25_2_NotifyWithinCarriesTheCallersValues: a notification sent
// while serving a call (NotifyWithin) reaches the notifier with the values
// of the context that call was made with — the session a worker's status
// update belongs to — one sent outside a call with none, and one sent
// within a call that has ended is dropped: nothing tells whose it was.
func TestH25_2_NotifyWithinCarriesTheCallersValues(t *testing.T) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	type seen struct{ origin, body string }
	got := make(chan seen, 8)
	a := NewConn(ar, aw, nil, func(ctx context.Context, method string, body []byte) {
		v, _ := ctx.Value(originKey{}).(string)
		got <- seen{v, string(body)}
	})
	proceed := make(chan struct{})
	var b *Conn
	b = NewConn(br, bw, func(ctx context.Context, method string, body []byte) (any, error) {
		if method == "late" {
			<-ctx.Done() // the caller gave up
			<-proceed    // and its call has returned
			_ = b.NotifyWithin(ctx, "status", "late")
			_ = b.Notify("status", "after")
			return nil, nil
		}
		_ = b.NotifyWithin(ctx, "status", "within")
		_ = b.Notify("status", "outside")
		return nil, nil
	}, nil)
	go a.Serve()
	go b.Serve()
	defer a.Close(nil)
	defer b.Close(nil)
	ctx := context.WithValue(context.Background(), originKey{}, "session a")
	if err := a.Call(ctx, "tool", nil, nil); err != nil {
		t.Fatal(err)
	}
	// Both were handled before the reply was read: while the call was
	// still in flight.
	if n := len(got); n != 2 {
		t.Fatalf("%d notifications handled when the call returned, want 2", n)
	}
	for _, want := range []seen{{"session a", `"within"`}, {"", `"outside"`}} {
		if s := <-got; s != want {
			t.Errorf("notified %+v, want %+v", s, want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := a.Call(cctx, "late", nil, nil); err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	close(proceed)
	if s := <-got; s != (seen{"", `"after"`}) {
		t.Errorf("notified %+v after the call ended, want only the one sent outside it", s)
	}
}
