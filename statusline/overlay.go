package statusline

import (
	"strings"
	"sync"
)

// Overlay is one agent session's own status texts, shown over the board's
// host-wide texts on that session's line only. A text set through a sink
// while a callback serves a session lands here (Sink.Update); texts set
// where no session is served (timers, attach) stay on the board and show in
// every session's line. For one field the latest write wins: a session's
// text shows on its line until a host-wide one is set after it (a timer's
// tick), and the other way round. A text counts only while the sink that set it is
// its plugin's live sink: a reload starts every session's fields of that
// plugin empty, as it does the board's. The zero value is ready to use and
// holds no memory until a text is set. Safe for concurrent use.
type Overlay struct {
	mu    sync.RWMutex
	texts map[string]overlaid // field name → text and the sink that set it
}

type overlaid struct {
	sink *Sink
	text string // "" for a clear: it hides an older host-wide text too
	seq  uint64 // when it was written (Board.seq)
}

// updateIn is Update for the session of o (an *Overlay; any other value is
// ignored): its line shows the text, or no text for the field after a
// clear, until one is set again (in the session or host-wide).
func (s *Sink) updateIn(o any, name, text string, note func(string)) {
	ov, ok := o.(*Overlay)
	if !ok || ov == nil || s.retired.Load() {
		return
	}
	key := strings.ToLower(name)
	if _, ok := s.names[key]; !ok {
		s.unknown(key, note)
		return
	}
	clean := sanitizeText(text)
	b := s.board
	b.mu.RLock()
	newest := b.written[key]
	subs := b.subs
	b.mu.RUnlock()
	ov.mu.Lock()
	prev, had := ov.texts[key]
	if had && prev.sink == s && prev.text == clean && prev.seq > newest {
		ov.mu.Unlock()
		return // the same text, still the latest: no change
	}
	if ov.texts == nil {
		ov.texts = map[string]overlaid{}
	}
	ov.texts[key] = overlaid{sink: s, text: clean, seq: b.seq.Add(1)}
	ov.mu.Unlock()
	notify(subs)
}

// Clear drops every text of the overlay (its session ended).
func (o *Overlay) Clear() {
	o.mu.Lock()
	o.texts = nil
	o.mu.Unlock()
}

// text returns the overlay's text of key while the sink that set it is
// live and owns the field. b.mu is held (read).
func (o *Overlay) text(b *Board, key string) (string, bool) {
	if o == nil {
		return "", false
	}
	o.mu.RLock()
	e, ok := o.texts[key]
	o.mu.RUnlock()
	if !ok || e.seq < b.written[key] || b.live[e.sink.plugin] != e.sink || b.owner[key] != e.sink.plugin {
		return "", false
	}
	return e.text, true
}
