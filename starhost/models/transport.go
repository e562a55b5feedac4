package models

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultTimeout bounds one model call, retries included.
const DefaultTimeout = 2 * time.Minute

// Retry bounds: a 429 is retried at most MaxRetries times, each after the
// provider's retry-after (retry-after-ms, or retry-after in seconds or as
// an HTTP date), 1s when it names none. A retry-after longer than
// MaxRetryWait is not waited for: the call fails with rate_limited at once.
const (
	MaxRetries   = 2
	MaxRetryWait = 20 * time.Second
)

// MaxResponseBody bounds a model response the host reads.
const MaxResponseBody = 16 << 20

// HTTPClient returns the client every adapter sends with: timeout bounds
// the whole call, retries included (DefaultTimeout when <= 0), and a 429
// is retried as the provider's retry-after says, within the bounds above.
// The SDKs' own retries are switched off, so every protocol retries alike.
func HTTPClient(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = DefaultTimeout
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
		if err != nil || resp.StatusCode != http.StatusTooManyRequests || attempt == MaxRetries {
			return resp, err
		}
		wait := retryAfter(resp.Header, time.Now())
		if wait > MaxRetryWait || (req.Body != nil && req.GetBody == nil) {
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

// Do sends one request and reads at most MaxResponseBody bytes of the
// answer. A transport error keeps its *url.Error (whose text names the
// endpoint): Classify reports only the innermost cause, since plugins never
// see endpoints (CC22).
func Do(hc *http.Client, req *http.Request) (status int, header http.Header, body []byte, err error) {
	resp, err := hc.Do(req)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return 0, nil, nil, ctxErr
		}
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody+1))
	if err != nil {
		return 0, nil, nil, err
	}
	if len(data) > MaxResponseBody {
		return 0, nil, nil, Malformed("the response is larger than %d bytes", MaxResponseBody)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// postJSON sends body as JSON to url with header and decodes a 2xx answer
// into out; an error answer becomes a *StatusError carrying the message
// errMsg extracts from its body. It serves the adapters written over
// net/http (deepseek, ollama).
func postJSON(ctx context.Context, hc *http.Client, url string, header http.Header, body, out any, errMsg func([]byte) string) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	status, _, resp, err := Do(hc, req)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		msg := errMsg(resp)
		if msg == "" {
			msg = strings.TrimSpace(string(resp))
		}
		return &StatusError{Status: status, Msg: clip(msg)}
	}
	if err := json.Unmarshal(resp, out); err != nil {
		return Malformed("not a JSON reply: %v", err)
	}
	return nil
}

// DataURL splits a data: URL ("data:image/png;base64,....") into its media
// type and bytes; ok is false for any other URL.
func DataURL(u string) (mediaType string, data []byte, ok bool, err error) {
	rest, isData := strings.CutPrefix(u, "data:")
	if !isData {
		return "", nil, false, nil
	}
	meta, payload, found := strings.Cut(rest, ",")
	mediaType, isBase64 := strings.CutSuffix(meta, ";base64")
	if !found || !isBase64 || mediaType == "" {
		return "", nil, true, fmt.Errorf("image data: URLs must be data:MEDIA/TYPE;base64,DATA")
	}
	data, err = base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return "", nil, true, fmt.Errorf("image data: URL is not valid base64: %v", err)
	}
	return mediaType, data, true, nil
}

// checkImages refuses images on a client that is not the images client.
func checkImages(cfg ClientConfig, req Request) error {
	if len(req.Images) > 0 && !cfg.Images {
		return &Error{Code: CodeBadRequest, Detail: "images are accepted only by the images client"}
	}
	return nil
}
