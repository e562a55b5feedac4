package statusline

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/internal/testkit"
)

// newAcme returns a board where plugin acme.x holds "queue" and "reviews",
// with a live sink whose notes are collected.
func newAcme(t *testing.T) (*Board, *Sink, *testkit.Log[string]) {
	t.Helper()
	b := NewBoard([]BuiltinField{{Name: "model", Description: "Session model"}})
	acc, rej := b.Declare("acme.x", []FieldDecl{{Name: "queue"}, {Name: "reviews"}})
	if len(acc) != 2 || len(rej) != 0 {
		t.Fatalf("declare: %+v %+v", acc, rej)
	}
	notes := &testkit.Log[string]{}
	s := b.NewSink("acme.x", "1", []string{"queue", "reviews"}, notes.Add)
	return b, s, notes
}

func text(b *Board, name string) string { s, _ := b.text(name); return s }

func TestCC18_SetAndClear(t *testing.T) {
	b, s, _ := newAcme(t)
	s.Set("Queue", "\x1b[32m3 open\x1b[0m")
	if got := text(b, "queue"); got != "3 open" {
		t.Fatalf("text = %q", got)
	}
	s.Set("queue", " \t\n")
	if _, ok := b.text("queue"); ok {
		t.Fatal("blank text must clear the field")
	}
	s.Set("queue", "2 open")
	s.Clear("QUEUE")
	if _, ok := b.text("queue"); ok {
		t.Fatal("Clear must remove the field")
	}
}

func TestCC18_IdenticalTextNotRepublished(t *testing.T) {
	b, s, _ := newAcme(t)
	var events atomic.Int32
	cancel := b.Subscribe(func() { events.Add(1) })
	defer cancel()
	s.Set("queue", "3 open")
	s.Set("queue", "3 open")
	s.Set("queue", "3 open\n")      // sanitises to the same text
	s.Set("queue", "\x1b[1m3 open") // likewise
	s.Clear("reviews")              // nothing to clear
	if got := events.Load(); got != 1 {
		t.Fatalf("events = %d, want 1", got)
	}
}

func TestCC18_SubscribeOncePerChange(t *testing.T) {
	b, s, _ := newAcme(t)
	var events atomic.Int32
	cancel := b.Subscribe(func() {
		events.Add(1)
		_ = b.Render(Line{Names: []string{"queue"}}, nil) // no lock is held
	})
	steps := []struct {
		do   func()
		want int32
	}{
		{func() { s.Set("queue", "a") }, 1},
		{func() { s.Set("queue", "b") }, 2},
		{func() { s.Set("reviews", "r") }, 3},
		{func() { s.Set("queue", "b") }, 3},
		{func() { s.Clear("queue") }, 4},
		{func() { s.Clear("queue") }, 4},
		{func() { s.Set("queue", "c") }, 5},
		{func() { s.Retire() }, 6}, // removes two texts: one change
		{func() { s.Retire() }, 6},
	}
	for i, st := range steps {
		st.do()
		if got := events.Load(); got != st.want {
			t.Fatalf("step %d: events = %d, want %d", i, got, st.want)
		}
	}
	cancel()
	cancel()
	s2 := b.NewSink("acme.x", "2", []string{"queue"}, nil)
	s2.Set("queue", "x")
	if got := events.Load(); got != 6 {
		t.Fatalf("cancelled subscriber called: %d", got)
	}
}

func TestCC18_UnknownNameOneNote(t *testing.T) {
	_, s, notes := newAcme(t)
	s.Set("xyz", "1")
	s.Set("XYZ", "2")
	s.Clear("xyz")
	s.Set("other", "3")
	want := []string{
		`status field "xyz" is not registered by plugin acme.x; ignored`,
		`status field "other" is not registered by plugin acme.x; ignored`,
	}
	if strings.Join(notes.All(), "\n") != strings.Join(want, "\n") {
		t.Fatalf("notes = %q", notes.All())
	}
	for i := range 2 * maxNotes {
		s.Set(fmt.Sprintf("n%d", i), "x")
	}
	if notes.Len() != maxNotes {
		t.Fatalf("notes are bounded to %d, got %d", maxNotes, notes.Len())
	}
}

func TestCC18_SinkReachesOnlyItsPluginsFields(t *testing.T) {
	b, _, _ := newAcme(t)
	b.Declare("other.y", []FieldDecl{{Name: "branch"}})
	var notes []string
	s := b.NewSink("other.y", "1", []string{"branch", "queue", "model"}, func(n string) { notes = append(notes, n) })
	s.Set("queue", "hijack")
	s.Set("model", "hijack")
	s.Set("branch", "main")
	if _, ok := b.text("queue"); ok || text(b, "branch") != "main" || len(notes) != 2 {
		t.Fatalf("queue=%q branch=%q notes=%q", text(b, "queue"), text(b, "branch"), notes)
	}
}

func TestCC17_RetiredSinkIgnoresCalls(t *testing.T) {
	b, s, notes := newAcme(t)
	s.Set("queue", "3")
	s.Retire()
	if !s.isRetired() {
		t.Fatal("Retired() = false after Retire")
	}
	if _, ok := b.text("queue"); ok {
		t.Fatal("Retire must remove the texts the sink published")
	}
	s.Set("queue", "4")
	s.Set("unknown", "4")
	s.Clear("queue")
	if _, ok := b.text("queue"); ok || notes.Len() != 0 {
		t.Fatalf("retired sink acted: text %q notes %q", text(b, "queue"), notes.All())
	}
}

func TestCC17_NewGenerationStartsEmpty(t *testing.T) {
	b, s1, _ := newAcme(t)
	s1.Set("queue", "gen1")
	s2 := b.NewSink("acme.x", "2", []string{"queue"}, nil)
	if !s1.isRetired() {
		t.Fatal("the previous generation's sink must be retired")
	}
	if _, ok := b.text("queue"); ok {
		t.Fatal("the new generation must start empty")
	}
	s1.Set("queue", "stale")
	s2.Set("queue", "gen2")
	s1.Retire() // retiring the old sink again must not touch gen2's text
	if got := text(b, "queue"); got != "gen2" {
		t.Fatalf("text = %q, want gen2", got)
	}
}

func TestCC18_FailedAttachRemovesText(t *testing.T) {
	b, s, _ := newAcme(t)
	s.Set("queue", "partial") // attach_status published, then failed
	s.Retire()                // the host closes the sink
	if _, ok := b.text("queue"); ok {
		t.Fatal("text of a failed attach_status must be removed")
	}
	if f := b.Fields(); f[1].Available {
		t.Fatalf("field without a live sink reported available: %+v", f[1])
	}
}

func TestCC16_WithdrawRetiresAndRemoves(t *testing.T) {
	b, s, _ := newAcme(t)
	s.Set("queue", "3")
	b.Withdraw("acme.x")
	if !s.isRetired() || b.Known("queue") {
		t.Fatal("withdraw must retire the sink and release the names")
	}
	if _, ok := b.text("queue"); ok {
		t.Fatal("withdraw must remove the texts")
	}
}

func TestCC18_SetUnchangedDoesNotAllocate(t *testing.T) {
	_, s, _ := newAcme(t)
	for _, text := range []string{"3 open", "3 open\t\x1b[0m"} {
		s.Set("queue", text)
		if allocs := testing.AllocsPerRun(1000, func() { s.Set("queue", text) }); allocs != 0 {
			t.Errorf("unchanged Set(%q): %v allocs", text, allocs)
		}
	}
}

// TestCC17_ConcurrentSetsAndRetire runs 16 goroutines pushing texts while the
// generation is replaced again and again; run it with -race.
func TestCC17_ConcurrentSetsAndRetire(t *testing.T) {
	b := NewBoard(nil)
	names := []string{"a", "b", "c", "d"}
	decls := make([]FieldDecl, len(names))
	for i, n := range names {
		decls[i] = FieldDecl{Name: n}
	}
	b.Declare("acme.x", decls)
	var current atomic.Pointer[Sink]
	current.Store(b.NewSink("acme.x", "0", names, nil))
	var events atomic.Int64
	defer b.Subscribe(func() { events.Add(1); b.Render(Line{Names: names}, nil) })()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				s := current.Load()
				n := names[(g+i)%len(names)]
				switch i % 5 {
				case 0:
					s.Clear(n)
				case 1:
					s.Set("nope", "x")
				default:
					s.Set(n, fmt.Sprintf("g%d-%d", g, i%7))
				}
				b.text(n)
			}
		})
	}
	for gen := 1; gen <= 300; gen++ {
		old := current.Load()
		if gen%3 == 0 {
			b.Declare("acme.x", decls) // a reload redeclares first
		}
		current.Store(b.NewSink("acme.x", fmt.Sprint(gen), names, nil))
		old.Retire()
		b.Fields()
		b.View(Line{Names: names})
	}
	// The setters may not have been scheduled yet on a loaded machine: let
	// them publish at least once before stopping them.
	for deadline := time.Now().Add(5 * time.Second); events.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()
	last := current.Load()
	last.Retire()
	for _, n := range names {
		if _, ok := b.text(n); ok {
			t.Fatalf("text %q survived the retirement of every sink", n)
		}
	}
	if events.Load() == 0 {
		t.Fatal("no change events")
	}
}
