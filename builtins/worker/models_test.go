package worker

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

type rateLimited struct{}

func (rateLimited) Error() string     { return "rate_limited: acme/busy: the provider is rate limiting" }
func (rateLimited) ErrorCode() string { return "rate_limited" }

type busyClient struct{}

func (busyClient) Complete(context.Context, contrib.ModelRequest) (contrib.ModelReply, error) {
	return contrib.ModelReply{}, rateLimited{}
}

type busyServices struct{ fakeServices }

func (*busyServices) ModelClient(context.Context, string, contrib.ModelRole) (contrib.ModelClient, error) {
	return busyClient{}, nil
}

// A model failure reaches the worker's client with its stable code and its
// message unchanged, so complete(on_error = "return") gives the plugin the
// same error(code, message) as in the host process (issue 16).
func TestModelErrorKeepsItsCode(t *testing.T) {
	h := NewHostSide(contrib.ActivationRequest{Plugin: "acme.m", Services: &busyServices{}, Capabilities: []string{"models"}}, nil)
	hr, ww := io.Pipe()
	wr, hw := io.Pipe()
	host := wire.NewConn(hr, hw, h.Handle, nil)
	worker := wire.NewConn(wr, ww, nil, nil)
	go func() { _ = host.Serve() }()
	go func() { _ = worker.Serve() }()
	defer func() { _ = hw.Close(); _ = ww.Close() }()
	svc := &remoteServices{conn: link{Conn: worker}}
	c, err := svc.ModelClient(context.Background(), "acme.m", contrib.RoleSession)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), contrib.ModelRequest{})
	var coded interface{ ErrorCode() string }
	if !errors.As(err, &coded) || coded.ErrorCode() != "rate_limited" || err.Error() != (rateLimited{}).Error() {
		t.Fatalf("Complete = %v; want %q with code rate_limited", err, (rateLimited{}).Error())
	}
}
