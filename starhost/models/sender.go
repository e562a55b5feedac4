package models

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// HTTPRequest is one HTTP request of a model call, ready to send: what a
// plugin's client factory encoded, with the API key already in place.
type HTTPRequest struct {
	Method, URL string
	Header      map[string]string
	Body        []byte
}

// HTTPResponse is the answer to an HTTPRequest: its status, its headers
// (names in lowercase) and at most MaxResponseBody bytes of its body.
type HTTPResponse struct {
	Status int
	Header map[string]string
	Body   []byte
}

// Sender sends the HTTP requests of plugins' client factories, bounded by
// timeout (DefaultTimeout when <= 0), with the retry every adapter has.
// A failure is an *Error with a stable code (unreachable, timeout, …) or
// the context's error.
type Sender func(ctx context.Context, timeout time.Duration, req HTTPRequest) (HTTPResponse, error)

var sender atomic.Pointer[Sender]

// RegisterSender makes s the network transport of plugins' client
// factories. starhost/models/modelhttp registers itself from init, and
// every adapter package imports it: the network is linked only into
// programs that make model calls.
func RegisterSender(s Sender) { sender.Store(&s) }

// ErrNoSender is the error of a model call in a program that links no
// network transport.
var ErrNoSender = errors.New(`this program links no model transport: its embedder must import _ "github.com/crystal-star/crystal-star/starhost/models/modelhttp" (or an adapter package, or starhost/models/builtin)`)

// Send sends req with the registered Sender; ErrNoSender when none is.
func Send(ctx context.Context, timeout time.Duration, req HTTPRequest) (HTTPResponse, error) {
	s := sender.Load()
	if s == nil {
		return HTTPResponse{}, ErrNoSender
	}
	return (*s)(ctx, timeout, req)
}
