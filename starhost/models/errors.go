package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// The stable codes of a failed model call, identical across protocols.
const (
	CodeUnauthorized  = "unauthorized"    // HTTP 401 or 403: the key is missing, wrong or lacks access
	CodeModelNotFound = "model_not_found" // HTTP 404: the provider does not serve the model
	CodeRateLimited   = "rate_limited"    // HTTP 429 after the bounded retry
	CodeBadRequest    = "bad_request"     // another 4xx: the provider rejected the request
	CodeProviderError = "provider_error"  // HTTP 5xx
	CodeTimeout       = "timeout"         // the model timeout or the caller's deadline passed
	CodeCancelled     = "cancelled"       // the caller's context was cancelled
	CodeUnreachable   = "unreachable"     // no HTTP answer: DNS, connection refused, TLS
	CodeBadReply      = "bad_reply"       // the answer is not the protocol's reply shape
	CodeRefused       = "refused"         // the model declined (refusal, safety or content filter)
)

// codeText says what each code means, the same sentence for every protocol.
var codeText = map[string]string{
	CodeUnauthorized:  "the provider rejected the API key",
	CodeModelNotFound: "the provider does not serve this model",
	CodeRateLimited:   "the provider is rate limiting; retried within the bound, try again later",
	CodeBadRequest:    "the provider rejected the request",
	CodeProviderError: "the provider failed",
	CodeTimeout:       "the call timed out",
	CodeCancelled:     "the call was cancelled",
	CodeUnreachable:   "the provider cannot be reached",
	CodeBadReply:      "the reply is malformed",
	CodeRefused:       "the model refused to answer",
}

// Error is a failed model call: a stable code, the provider and model, the
// HTTP status (0 when none) and the provider's own one-line detail. Its
// text is one line: "CODE: PROVIDER/MODEL: what happened (detail)".
type Error struct {
	Code     string
	Provider string
	Model    string
	Status   int
	Detail   string
	err      error
}

// Error returns the one-line text: "CODE: PROVIDER/MODEL: what happened
// (detail)".
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s/%s: %s", e.Code, e.Provider, e.Model, codeText[e.Code])
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Unwrap returns the cause (context.Canceled, context.DeadlineExceeded,
// a network error), when there is one.
func (e *Error) Unwrap() error { return e.err }

// ErrorCode returns the stable code; builtins reads it through this
// method to give a plugin error(code, message).
func (e *Error) ErrorCode() string { return e.Code }

// StatusError is an HTTP error answer, as an adapter read it: the status
// and the provider's message. Classify turns it into an *Error.
type StatusError struct {
	Status int
	Msg    string
}

// Error returns "HTTP STATUS: message".
func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Msg) }

// Malformed returns the error of a reply that is not the protocol's shape.
func Malformed(format string, args ...any) error {
	return &Error{Code: CodeBadReply, Detail: clip(fmt.Sprintf(format, args...))}
}

// Unreachable returns the error of a call that got no HTTP answer: detail
// says why without naming the host or address (CC22), cause is kept for
// errors.Is. The network transport (modelhttp) reports failures with it.
func Unreachable(detail string, cause error) *Error {
	return &Error{Code: CodeUnreachable, Detail: clip(detail), err: cause}
}

// TimedOut returns the error of a call the timeout ended; cause is kept
// for errors.Is.
func TimedOut(cause error) *Error { return &Error{Code: CodeTimeout, err: cause} }

// Refused returns the error of a reply in which the model declined.
func Refused(format string, args ...any) error {
	return &Error{Code: CodeRefused, Detail: clip(fmt.Sprintf(format, args...))}
}

// Classify turns any error of a call to provider/model into an *Error with
// a stable code. ctx is the caller's context: its end decides between
// cancelled and timeout even when the transport reported something else.
func Classify(ctx context.Context, provider, model string, err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		c := *e
		c.Provider, c.Model = provider, model
		return &c
	}
	out := &Error{Provider: provider, Model: model, err: err}
	var se *StatusError
	var te timeoutError
	switch {
	case errors.Is(ctx.Err(), context.Canceled) || errors.Is(err, context.Canceled):
		out.Code = CodeCancelled
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		(errors.As(err, &te) && te.Timeout()):
		out.Code = CodeTimeout
	case errors.As(err, &se):
		out.Code, out.Status = statusCode(se.Status), se.Status
		out.Detail = clip(fmt.Sprintf("HTTP %d: %s", se.Status, se.Msg))
	case isTransport(err):
		out.Code, out.Detail = CodeUnreachable, transportDetail(err)
	default: // an adapter that could not decode the answer
		out.Code, out.Detail = CodeBadReply, clip(innermost(err).Error())
	}
	return out
}

// timeoutError is what net.Error adds to an error, named here so this
// package need not link the network (modelhttp does).
type timeoutError interface{ Timeout() bool }

// isTransport reports whether err happened before an HTTP answer was read
// whole: a URL, network or I/O error. The network transport (modelhttp)
// names the common causes itself (Unreachable).
func isTransport(err error) bool {
	var ue *url.Error
	var te timeoutError
	return errors.As(err, &ue) || errors.As(err, &te) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// transportDetail says why no answer came, without the host name or
// address, which plugins never see (CC22).
func transportDetail(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "the connection closed before the answer was complete"
	}
	return clip(innermost(err).Error())
}

// statusCode maps an HTTP error status to its stable code.
func statusCode(status int) string {
	switch {
	case status == 401 || status == 403:
		return CodeUnauthorized
	case status == 404:
		return CodeModelNotFound
	case status == 429:
		return CodeRateLimited
	case status >= 500:
		return CodeProviderError
	}
	return CodeBadRequest
}

// innermost returns the deepest wrapped error: net/http wraps the
// cause in text naming the endpoint, which plugins never see (CC22).
func innermost(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}

// clip makes s one line of at most 200 bytes.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
