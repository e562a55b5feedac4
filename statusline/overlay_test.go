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
	sink.Update(&a, "queue", "a's", nil)
	if got, o := b.RenderWith(line, &a, nil), b.RenderWith(line, &other, nil); got != "a's" || o != "" {
		t.Fatalf("a's line %q, another's %q", got, o)
	}
	sink.Set("queue", "host") // later, host-wide: it wins everywhere
	if got, o := b.RenderWith(line, &a, nil), b.RenderWith(line, &other, nil); got != "host" || o != "host" {
		t.Fatalf("after a host-wide set: a %q, other %q", got, o)
	}
	sink.Update(&a, "queue", "a's", nil) // the same text again, now the latest
	if got := b.RenderWith(line, &a, nil); got != "a's" {
		t.Fatalf("a's line %q after re-setting", got)
	}
	sink.Update(&a, "queue", "", nil)
	if got, o := b.RenderWith(line, &a, nil), b.RenderWith(line, &other, nil); got != "" || o != "host" {
		t.Fatalf("after a's clear: a %q, other %q", got, o)
	}
	sink.Update(&a, "queue", "a's", nil)
	b.NewSink("acme.x", "g2", []string{"queue"}, nil) // a reload: g1's texts go
	if got := b.RenderWith(line, &a, nil); got != "" {
		t.Fatalf("a's line %q after the reload", got)
	}
}

// TestH25_2_OneUpdateCarriesTheSessionAndTheNote: Sink.Update is the one
// setter with options: without an overlay it is Set (a blank text is
// Clear), with one it writes that session's line only, and a caller's note
// receives the note of an unregistered name, once per name, in place of
// the sink's own.
func TestH25_2_OneUpdateCarriesTheSessionAndTheNote(t *testing.T) {
	b := NewBoard(nil)
	b.Declare("acme.x", []FieldDecl{{Name: "queue"}})
	var own []string
	sink := b.NewSink("acme.x", "g1", []string{"queue"}, func(msg string) { own = append(own, msg) })
	line := Line{Names: []string{"queue"}}
	var a Overlay
	sink.Update(nil, "queue", "host", nil)
	sink.Update(&a, "queue", "a's", nil)
	if got, host := b.RenderWith(line, &a, nil), b.RenderWith(line, nil, nil); got != "a's" || host != "host" {
		t.Fatalf("a's line %q, the host-wide line %q", got, host)
	}
	sink.Update(nil, "queue", "", nil)
	if host := b.RenderWith(line, nil, nil); host != "" {
		t.Fatalf("after a blank host-wide update: %q", host)
	}
	var placed []string
	at := func(msg string) { placed = append(placed, "line 3: "+msg) }
	sink.Update(&a, "nope", "x", at)
	sink.Update(nil, "nope", "x", at)
	sink.Update(nil, "other", "x", nil)
	if len(placed) != 1 || len(own) != 1 {
		t.Fatalf("notes: the caller's %q, the sink's own %q; want one each (once per name)", placed, own)
	}
}
