package worker

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
	"github.com/crystal-star/crystal-star/internal/testkit"
)

// fakeServices records notes and hands out model clients and a sink.
type fakeServices struct {
	testkit.Services[contrib.Diagnostic, contrib.Facts]
	clients int
	sink    *fakeSink
}

func (f *fakeServices) ModelClient(context.Context, string, contrib.ModelRole) (contrib.ModelClient, error) {
	f.clients++
	return nil, nil
}
func (f *fakeServices) ModelEpoch(contrib.ModelRole) uint64 { return 7 }
func (f *fakeServices) StatusSink(string, string) builtins.StatusSink {
	f.sink = &fakeSink{}
	return f.sink
}

type fakeSink struct {
	set, retired int
	in           map[any]string // texts set in a session's overlay, by overlay
}

func (s *fakeSink) Set(string, string) { s.set++ }
func (s *fakeSink) Clear(string)       {}
func (s *fakeSink) Retire()            { s.retired++ }

func (s *fakeSink) Update(o builtins.StatusOverlay, name, text string, _ func(string)) {
	switch {
	case o == nil:
		s.set++
	case text == "":
		delete(s.in, o)
	default:
		if s.in == nil {
			s.in = map[any]string{}
		}
		s.in[o] = name + "=" + text
	}
}

// servedSession is a session with a status overlay of its own, as the
// host binds it to the context of a call it makes for the session.
type servedSession struct{ contrib.FactsSession }

func (s *servedSession) StatusOverlay() builtins.StatusOverlay { return s }

// TestH25_2_HostSideAppliesAStatusUpdateUnderItsCall: a status update the
// worker sent within a call goes to the overlay of the session that call
// serves (the context Notify gets); one sent outside any call is
// host-wide.
func TestH25_2_HostSideAppliesAStatusUpdateUnderItsCall(t *testing.T) {
	svc := &fakeServices{}
	h := NewHostSide(contrib.ActivationRequest{Plugin: "acme.mine", Services: svc}, nil)
	if _, err := h.Handle(context.Background(), wire.MethodStatusSink, nil); err != nil {
		t.Fatal(err)
	}
	a := &servedSession{}
	push, _ := json.Marshal(wire.StatusUpdate{Name: "who", Text: "a", Pos: &contrib.Pos{Line: 3}})
	h.Notify(contrib.WithSession(context.Background(), a), wire.NotifyStatusSet, push)
	if got := svc.sink.in[a]; got != "who=a" || svc.sink.set != 0 {
		t.Fatalf("within a's call: overlay %q, %d host-wide sets; want who=a and none", got, svc.sink.set)
	}
	h.Notify(context.Background(), wire.NotifyStatusSet, push)
	if svc.sink.set != 1 || len(svc.sink.in) != 1 {
		t.Fatalf("outside a call: %d host-wide sets, overlays %v; want 1 and a's only", svc.sink.set, svc.sink.in)
	}
}

// A worker speaks for its own plugin only, and gets model clients only with
// the models capability: the host does not take the worker's word.
func TestHostSideTrustsNoWorker(t *testing.T) {
	svc := &fakeServices{}
	h := NewHostSide(contrib.ActivationRequest{Plugin: "acme.mine", Services: svc}, nil)
	note, _ := json.Marshal(contrib.Diag(contrib.PrintNote, "acme.other", contrib.Pos{}, "print: hi"))
	h.Notify(context.Background(), wire.NotifyNote, note)
	if len(svc.All()) != 1 || svc.All()[0].Plugin != "acme.mine" {
		t.Fatalf("notes = %+v, want one of acme.mine", svc.All())
	}
	role, _ := json.Marshal(contrib.RoleSession)
	if _, err := h.Handle(context.Background(), wire.MethodModelClient, role); err == nil || svc.clients != 0 {
		t.Fatalf("a plugin without the models capability got a client (err %v)", err)
	}
	h = NewHostSide(contrib.ActivationRequest{Plugin: "acme.mine", Services: svc, Capabilities: []string{"models"}}, nil)
	if id, err := h.Handle(context.Background(), wire.MethodModelClient, role); err != nil || id.(uint64) == 0 {
		t.Fatalf("model_client = %v, %v", id, err)
	}
}

// A killed worker never retires its status sink itself: closing the host
// side does, and later pushes are dropped.
func TestHostSideRetiresTheSink(t *testing.T) {
	svc := &fakeServices{}
	h := NewHostSide(contrib.ActivationRequest{Plugin: "acme.mine", Services: svc}, nil)
	if ok, err := h.Handle(context.Background(), wire.MethodStatusSink, nil); err != nil || ok != true {
		t.Fatalf("status_sink = %v, %v", ok, err)
	}
	push, _ := json.Marshal(wire.StatusUpdate{Name: "n", Text: "1"})
	h.Notify(context.Background(), wire.NotifyStatusSet, push)
	h.Close()
	h.Notify(context.Background(), wire.NotifyStatusSet, push)
	if svc.sink.set != 1 || svc.sink.retired != 1 {
		t.Fatalf("sink: %d sets, %d retires; want 1 and 1", svc.sink.set, svc.sink.retired)
	}
}

func TestRemoteErrKeepsNotSupported(t *testing.T) {
	err := remoteErr(&wire.RemoteError{Message: contrib.NotSupported("no video").Error()})
	if !strings.Contains(err.Error(), "no video") || !errors.Is(err, contrib.ErrNotSupported) {
		t.Fatalf("remoteErr = %v, want a not_supported error", err)
	}
}
