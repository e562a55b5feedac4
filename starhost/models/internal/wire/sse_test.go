package wire

import (
	"errors"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost/models"
)

// Events follows the WHATWG event-stream rules the providers' streams
// use: named and unnamed events, data lines joined by newlines, comments
// and unknown fields skipped, CRLF line ends, and an event the stream ends
// before its blank line discarded.
func TestEvents(t *testing.T) {
	in := ": keep-alive\n\nevent: a\ndata: one\ndata:two\nid: 3\nretry: 10\n\r\ndata: plain\n\nevent: empty\n\nevent: cut\ndata: never\n"
	var got []string
	err := Events(strings.NewReader(in), func(event string, data []byte) error {
		got = append(got, event+"="+string(data))
		return nil
	})
	if want := "a=one\ntwo|message=plain"; err != nil || strings.Join(got, "|") != want {
		t.Errorf("Events = %q, %v; want %q", strings.Join(got, "|"), err, want)
	}
	stop := errors.New("stop")
	if err := Events(strings.NewReader("data: x\n\ndata: y\n\n"), func(string, []byte) error { return stop }); err != stop {
		t.Errorf("f's error: %v", err)
	}
}

// A stream larger than models.MaxResponseBody is refused.
func TestEventsBounded(t *testing.T) {
	line := "data: " + strings.Repeat("x", 1<<19) + "\n\n"
	err := Events(strings.NewReader(strings.Repeat(line, models.MaxResponseBody/len(line)+2)), func(string, []byte) error { return nil })
	var me *models.Error
	if !errors.As(err, &me) || me.Code != models.CodeBadReply {
		t.Errorf("oversized stream: %v", err)
	}
}
