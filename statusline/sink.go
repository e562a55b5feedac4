package statusline

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// maxNotes bounds the unknown names a sink remembers having noted, so a plugin
// inventing names in a loop cannot grow the host's memory or flood the notes.
const maxNotes = 64

// maxRaw bounds the raw text a sink keeps to recognise an unchanged Set
// before sanitising; longer texts are compared after sanitising.
const maxRaw = 1024

// Sink is one plugin generation's handle for pushing status texts (CC17,
// CC18): the object behind ctx.status. It only reaches the fields its plugin
// was granted, only while it is the plugin's live sink, and only until it is
// retired. All methods are safe for concurrent use from any goroutine: a
// plugin may call Set from any callback or from a timer it owns.
type Sink struct {
	board      *Board
	plugin     string
	generation string
	names      map[string]struct{} // immutable after NewSink
	note       func(string)

	retired atomic.Bool // set under mu, read without it on the fast path
	mu      sync.Mutex
	last    map[string]published // what this sink has on the board
	noted   map[string]struct{}
}

type published struct {
	raw  string // the text as the plugin passed it, if at most maxRaw bytes
	text string // the text on the board
}

// NewSink returns the sink for one generation of a plugin (CC17) and makes it
// the plugin's live sink. names are the plugin's accepted (lowercase) fields;
// a name the board does not hold for plugin is treated as unregistered. A
// previous sink of the same plugin is retired and its texts removed, so the
// new generation starts empty.
//
// note, which may be nil, receives English notes such as
// `status field "xyz" is not registered by plugin acme.x; ignored`, at most
// once per unknown name per sink; it is called outside any lock, on the
// goroutine that called Set or Clear. generation only names the sink in
// String; it is not interpreted. Safe for concurrent use.
func (b *Board) NewSink(plugin, generation string, names []string, note func(string)) *Sink {
	s := &Sink{
		board:      b,
		plugin:     plugin,
		generation: generation,
		names:      make(map[string]struct{}, len(names)),
		note:       note,
		last:       make(map[string]published, len(names)),
	}
	b.mu.Lock()
	for _, n := range names {
		key := strings.ToLower(n)
		if b.owner[key] == plugin {
			s.names[key] = struct{}{}
		}
	}
	old := b.live[plugin]
	b.live[plugin] = s
	subs := b.dropTexts(plugin)
	b.mu.Unlock()
	b.after(old, subs)
	return s
}

// Set replaces the text of one of the plugin's fields (CC18). name is compared
// case-insensitively. The text is sanitised (see Sanitize); a text that is
// blank after sanitising clears the field. An identical text is not
// republished and fires no change event; repeating the previous text (up to
// 1 KiB as passed) does not allocate, does not sanitise again and holds only
// the sink's own lock. A name the plugin did not register is
// ignored with one note per name. After Retire, Set does nothing.
func (s *Sink) Set(name, text string) { s.update(name, text, nil) }

// Clear removes the text of one of the plugin's fields (CC18), exactly as Set
// with blank text. Clearing a field with no text is no change.
func (s *Sink) Clear(name string) { s.update(name, "", nil) }

// Update is Set (a blank text clears) with two options. in, when not nil,
// is a session's *Overlay: the text goes to that session's line only, not
// the host-wide one, with the same admission and sanitising (another value
// is ignored). note, when not nil, receives the note about a name the
// plugin did not register instead of the sink's own callback: a caller
// that knows where the call stands (builtins' ctx.status.set) adds its
// place. The note is still given once per name.
func (s *Sink) Update(in any, name, text string, note func(msg string)) {
	if in == nil {
		s.update(name, text, note)
		return
	}
	s.updateIn(in, name, text, note)
}

// Retire ends the sink: every later call is ignored and every text it
// published is removed, in one change event. The host retires a generation's
// sink before the next generation's attach_status, and when attach_status
// fails. Retire is idempotent and safe for concurrent use; once it returns, no
// Set of this sink can publish.
func (s *Sink) Retire() {
	s.mu.Lock()
	if s.retired.Swap(true) {
		s.mu.Unlock()
		return
	}
	s.last = nil
	b := s.board
	var subs []subscriber
	b.mu.Lock()
	if b.live[s.plugin] == s {
		delete(b.live, s.plugin)
		subs = b.dropTexts(s.plugin)
	}
	b.mu.Unlock()
	s.mu.Unlock()
	notify(subs)
}

// isRetired reports whether the sink has been retired, by Retire or because
// its plugin was redeclared, withdrawn or given a newer sink. Safe for
// concurrent use.
func (s *Sink) isRetired() bool { return s.retired.Load() }

// String names the sink as plugin@generation, for logs. Safe for concurrent use.
func (s *Sink) String() string { return s.plugin + "@" + s.generation }

// detach retires a sink whose board state the board has already removed.
func (s *Sink) detach() {
	s.mu.Lock()
	s.retired.Store(true)
	s.last = nil
	s.mu.Unlock()
}

func (s *Sink) update(name, text string, note func(string)) {
	if s.retired.Load() {
		return
	}
	key := strings.ToLower(name)
	if _, ok := s.names[key]; !ok {
		s.unknown(key, note)
		return
	}
	s.mu.Lock()
	if p, ok := s.last[key]; ok && text != "" && p.raw == text {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	clean := sanitizeText(text) // outside the lock: the text may be long
	s.mu.Lock()
	subs := s.publish(key, text, clean)
	s.mu.Unlock()
	notify(subs)
}

// publish moves the field to clean and returns the subscribers to notify.
// Called with s.mu held.
func (s *Sink) publish(key, raw, clean string) []subscriber {
	if s.retired.Load() {
		return nil
	}
	p, had := s.last[key]
	if clean == "" && !had || had && p.text == clean {
		if had {
			s.last[key] = published{raw: keep(raw), text: clean}
		}
		return nil
	}
	b := s.board
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.live[s.plugin] != s || b.owner[key] != s.plugin {
		return nil // superseded; the board is about to retire this sink
	}
	b.written[key] = b.seq.Add(1) // the latest write wins over a session's older one
	if clean == "" {
		delete(s.last, key)
		delete(b.texts, key)
	} else {
		s.last[key] = published{raw: keep(raw), text: clean}
		b.texts[key] = clean
	}
	return b.subs
}

func keep(raw string) string {
	if len(raw) > maxRaw {
		return ""
	}
	return raw
}

// unknown notes a name the plugin did not register, once per name.
func (s *Sink) unknown(key string, note func(string)) {
	if note == nil {
		note = s.note
	}
	if note == nil {
		return
	}
	q := quoteName(key)
	s.mu.Lock()
	_, seen := s.noted[q]
	if seen || len(s.noted) >= maxNotes || s.retired.Load() {
		s.mu.Unlock()
		return
	}
	if s.noted == nil {
		s.noted = make(map[string]struct{})
	}
	s.noted[q] = struct{}{}
	s.mu.Unlock()
	note(fmt.Sprintf("status field %s is not registered by plugin %s; ignored", q, s.plugin))
}
