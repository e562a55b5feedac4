package statusline

import "testing"

// TestH25_2_SessionOverlay: a session's text shows on its line only, over
// the host-wide one; for one field the latest write wins, a session's
// clear included; a new generation's sink starts every session empty.
func TestH25_2_SessionOverlay(t *testing.T) {
	b := NewBoard(nil)
	b.Declare("acme.x", []FieldDecl{{Name: "queue"}})
	sink := b.NewSink("acme.x", "g1", []string{"queue"}, nil)
	line := Line{Names: []string{"queue"}}
	var a, other Overlay
	sink.SetIn(&a, "queue", "a's", nil)
	if got, o := b.RenderWith(line, &a, nil), b.RenderWith(line, &other, nil); got != "a's" || o != "" {
		t.Fatalf("a's line %q, another's %q", got, o)
	}
	sink.Set("queue", "host") // later, host-wide: it wins everywhere
	if got, o := b.RenderWith(line, &a, nil), b.RenderWith(line, &other, nil); got != "host" || o != "host" {
		t.Fatalf("after a host-wide set: a %q, other %q", got, o)
	}
	sink.SetIn(&a, "queue", "a's", nil) // the same text again, now the latest
	if got := b.RenderWith(line, &a, nil); got != "a's" {
		t.Fatalf("a's line %q after re-setting", got)
	}
	sink.ClearIn(&a, "queue", nil)
	if got, o := b.RenderWith(line, &a, nil), b.RenderWith(line, &other, nil); got != "" || o != "host" {
		t.Fatalf("after a's clear: a %q, other %q", got, o)
	}
	sink.SetIn(&a, "queue", "a's", nil)
	b.NewSink("acme.x", "g2", []string{"queue"}, nil) // a reload: g1's texts go
	if got := b.RenderWith(line, &a, nil); got != "" {
		t.Fatalf("a's line %q after the reload", got)
	}
}
