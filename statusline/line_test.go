package statusline

import (
	"slices"
	"testing"
)

func TestCC16_ApplySubcommands(t *testing.T) {
	known := func(n string) bool { return n == "model" || n == "queue" }
	tests := []struct {
		from      Line
		verb, arg string
		want      Line
		changed   bool
		err       string
	}{
		{Line{}, "add", "Queue", Line{Names: []string{"queue"}}, true, ""},
		{Line{Names: []string{"queue"}}, "ADD", "queue", Line{Names: []string{"queue"}}, false, ""},
		{Line{Names: []string{"Queue"}}, "add", "queue", Line{Names: []string{"Queue"}}, false, ""},
		{Line{Names: []string{"queue"}}, "add", "model", Line{Names: []string{"queue", "model"}}, true, ""},
		{Line{}, "add", "xyz", Line{}, false, `status field "xyz" is not known: no built-in field or loaded plugin has it`},
		{Line{}, "add", "on", Line{}, false, `status field "on" is reserved: on is a status line verb`},
		{Line{}, "add", "a--b", Line{}, false, `status field "a--b" is invalid: "--" is not allowed`},
		{Line{}, "add", "", Line{}, false, `status line add needs a field name`},
		{Line{Names: []string{"model", "queue"}}, "remove", "MODEL", Line{Names: []string{"queue"}}, true, ""},
		{Line{Names: []string{"queue"}}, "remove", "model", Line{Names: []string{"queue"}}, false, `status field "model" is not on the status line`},
		{Line{Names: []string{"gone"}}, "remove", "gone", Line{Names: []string{}}, true, ""},
		{Line{}, "off", "", Line{Off: true}, true, ""},
		{Line{Off: true}, "off", "", Line{Off: true}, false, ""},
		{Line{Off: true, Names: []string{"q"}}, "on", "", Line{Names: []string{"q"}}, true, ""},
		{Line{}, "on", "", Line{}, false, ""},
		{Line{Off: true, Names: []string{"q"}}, "reset", "", Line{}, true, ""},
		{Line{}, "reset", "", Line{}, false, ""},
		{Line{}, "on", "now", Line{}, false, `status line on takes no argument`},
		{Line{}, "toggle", "", Line{}, false, `unknown status line edit "toggle"; use add, remove, on, off or reset`},
	}
	for _, tt := range tests {
		t.Run(tt.verb+" "+tt.arg, func(t *testing.T) {
			before := slices.Clone(tt.from.Names)
			got, changed, err := tt.from.Apply(tt.verb, tt.arg, known)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("%+v.Apply(%q, %q) error = %v, want %s", tt.from, tt.verb, tt.arg, err, tt.err)
				}
			} else if err != nil {
				t.Errorf("%+v.Apply(%q, %q): %v", tt.from, tt.verb, tt.arg, err)
			}
			if got.Off != tt.want.Off || !slices.Equal(got.Names, tt.want.Names) || changed != tt.changed {
				t.Errorf("%+v.Apply(%q, %q) = %+v, %v; want %+v, %v", tt.from, tt.verb, tt.arg, got, changed, tt.want, tt.changed)
			}
			if !slices.Equal(tt.from.Names, before) {
				t.Errorf("Apply modified the receiver's names: %v", tt.from.Names)
			}
		})
	}
}

func TestCC16_ApplyDoesNotAlias(t *testing.T) {
	names := make([]string, 1, 4)
	names[0] = "model"
	l := Line{Names: names}
	a, _, _ := l.Apply("add", "queue", func(string) bool { return true })
	c, _, _ := l.Apply("add", "tokens", func(string) bool { return true })
	if a.Names[1] != "queue" || c.Names[1] != "tokens" {
		t.Fatalf("lines share storage: %v %v", a.Names, c.Names)
	}
}

func TestCC16_NoFieldPlacedByDefault(t *testing.T) {
	b, s, _ := newAcme(t)
	s.Set("queue", "3 open")
	if got := b.Render(Line{}, func(string) string { return "gpt" }); got != "" {
		t.Fatalf("empty line rendered %q", got)
	}
}

func TestCC16_RenderOrderAndSeparator(t *testing.T) {
	b, s, _ := newAcme(t)
	s.Set("queue", "3 open")
	s.Set("reviews", "12 done")
	host := func(n string) string {
		if n == "model" {
			return "gpt-5"
		}
		return ""
	}
	l := Line{Names: []string{"reviews", "MODEL", "tokens", "queue"}}
	if got, want := b.Render(l, host), "12 done · gpt-5 · 3 open"; got != want {
		t.Fatalf("Render = %q, want %q", got, want)
	}
	s.Clear("reviews")
	if got, want := b.Render(l, nil), "3 open"; got != want {
		t.Fatalf("Render without builtin texts = %q, want %q", got, want)
	}
	l.Off = true
	if got := b.Render(l, host); got != "" {
		t.Fatalf("off line rendered %q", got)
	}
}

func TestCC16_SavedNameKeptWhenPluginMissing(t *testing.T) {
	b, s, _ := newAcme(t)
	s.Set("queue", "3 open")
	l := Line{Names: []string{"queue", "model", "ghost"}}
	b.Withdraw("acme.x")
	if got := b.Render(l, func(string) string { return "gpt-5" }); got != "gpt-5" {
		t.Fatalf("Render = %q", got)
	}
	// Removing other names leaves the saved ones alone.
	l, _, err := l.Apply("remove", "model", b.Known)
	if err != nil || !slices.Equal(l.Names, []string{"queue", "ghost"}) {
		t.Fatalf("names = %v, %v", l.Names, err)
	}
	// The plugin comes back: its saved field shows again.
	b.Declare("acme.x", []FieldDecl{{Name: "queue"}})
	b.NewSink("acme.x", "2", []string{"queue"}, nil).Set("queue", "back")
	if got := b.Render(l, nil); got != "back" {
		t.Fatalf("Render after reload = %q", got)
	}
}

func TestCC16_ViewMarksUnavailable(t *testing.T) {
	b, _, _ := newAcme(t)
	b.Declare("acme.long", []FieldDecl{{Name: "long", Description: "x\n" + string(slices.Repeat([]rune{'é'}, 100))}})
	l := Line{Off: true, Names: []string{"Queue", "ghost", "model", "ghost"}}
	got := b.View(l)
	want := []ViewRow{
		{Name: "model", Description: "Session model", OnLine: true, Builtin: true},
		{Name: "queue", Plugin: "acme.x", OnLine: true},
		{Name: "reviews", Plugin: "acme.x"},
		{Name: "long", Plugin: "acme.long", Description: "x " + string(slices.Repeat([]rune{'é'}, 78))},
		{Name: "ghost", OnLine: true, Unavailable: true},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("View =\n%+v\nwant\n%+v", got, want)
	}
}
