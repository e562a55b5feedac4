package models

import (
	"encoding/base64"
	"fmt"
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
