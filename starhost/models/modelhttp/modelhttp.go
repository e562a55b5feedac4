// Package modelhttp is the network transport of model calls: the bounded,
// retrying HTTP client every adapter sends with, the read of an answer
// within models.MaxResponseBody, the one-line causes of a call that got no
// answer, and the Sender of plugins' client factories (registered with
// starhost/models from init).
//
// It is a package of its own so that starhost links no net/http, TLS or
// x509: only a program that makes model calls does — every adapter
// package imports it, and so does starhost/models/builtin. A host whose
// plugins use client factories without any adapter imports it alone:
//
//	import _ "github.com/crystal-star/crystal-star/starhost/models/modelhttp"
package modelhttp

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/crystal-star/crystal-star/starhost/models"
)

func init() { models.RegisterSender(send) }

// Client returns the client every adapter sends with: timeout bounds
// the whole call, retries included (models.DefaultTimeout when <= 0), and a 429
// is retried as the provider's retry-after says, within the bounds above.
// Every adapter sends through it, so every protocol retries alike.
func Client(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = models.DefaultTimeout
	}
	return &http.Client{Timeout: timeout, Transport: &retryTransport{base: http.DefaultTransport}}
}

// retryTransport retries a 429 answer as the provider's retry-after says.
type retryTransport struct{ base http.RoundTripper }

// RoundTrip sends req, and again after a 429 within the retry bounds. The
// wait ends early when the request's context ends.
func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := t.base.RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusTooManyRequests || attempt == models.MaxRetries {
			return resp, err
		}
		wait := retryAfter(resp.Header, time.Now())
		if wait > models.MaxRetryWait || (req.Body != nil && req.GetBody == nil) {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		timer := time.NewTimer(wait)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
		}
		next := req.Clone(req.Context())
		if req.GetBody != nil {
			if next.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		req = next
	}
}

// retryAfter reads how long a 429 asks to wait.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0)
	}
	return time.Second
}

// Do sends one request and reads at most models.MaxResponseBody bytes of the
// answer. A call that got no answer is a *models.Error (Unreachable, or
// TimedOut) whose detail names neither host nor address (CC22); the end of
// the request's context is the context's error.
func Do(hc *http.Client, req *http.Request) (status int, header http.Header, body []byte, err error) {
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, nil, Failure(req.Context(), err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, models.MaxResponseBody+1))
	if err != nil {
		return 0, nil, nil, Failure(req.Context(), err)
	}
	if len(data) > models.MaxResponseBody {
		return 0, nil, nil, models.Malformed("the response is larger than %d bytes", models.MaxResponseBody)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// Failure is the error of a call whose answer did not come (whole): the
// context's error once ctx ended, a timeout, else an unreachable provider
// with the cause in words that name no host or address (CC22).
func Failure(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return models.TimedOut(err)
	}
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var rec tls.RecordHeaderError
	switch {
	case errors.As(err, &dns):
		return models.Unreachable("the host name does not resolve", err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return models.Unreachable("connection refused", err)
	case errors.Is(err, syscall.ECONNRESET):
		return models.Unreachable("connection reset", err)
	case errors.As(err, &cert) || errors.As(err, &rec):
		return models.Unreachable("the TLS handshake failed", err)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return models.Unreachable("the connection closed before the answer was complete", err)
	}
	return err // models.Classify reports its innermost cause
}

// send is the models.Sender of plugins' client factories.
func send(ctx context.Context, timeout time.Duration, r models.HTTPRequest) (models.HTTPResponse, error) {
	hr, err := http.NewRequestWithContext(ctx, r.Method, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return models.HTTPResponse{}, err
	}
	for name, v := range r.Header {
		hr.Header.Set(name, v)
	}
	status, header, data, err := Do(Client(timeout), hr)
	if err != nil {
		return models.HTTPResponse{}, err
	}
	resp := models.HTTPResponse{Status: status, Body: data, Header: make(map[string]string, len(header))}
	for name := range header {
		resp.Header[strings.ToLower(name)] = header.Get(name)
	}
	return resp, nil
}
