package main

import "testing"

// TestNearest pins what "did you mean" suggests: a typo (one or two edits,
// a transposition counting as one) or the only name a prefix starts; never
// a far-off name or the word itself.
func TestNearest(t *testing.T) {
	names := []string{"check", "plugins", "tools", "trust", "status", "dev", "fmt"}
	for _, c := range []struct{ word, want string }{
		{"chek", "check"},
		{"chekc", "check"},
		{"plguins", "plugins"},
		{"tols", "tools"},
		{"stat", "status"},
		{"dve", "dev"},
		{"zzzzzz", ""},
		{"check", ""},
		{"", ""},
	} {
		if got := nearest(c.word, names); got != c.want {
			t.Errorf("nearest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

// TestEveryCommandHasHelp proves each command of the table says what help
// shows: a summary and one example, and flags with help text.
func TestEveryCommandHasHelp(t *testing.T) {
	for _, c := range commands {
		if c.summary == "" || c.example == "" {
			t.Errorf("command %s needs a summary and an example", c.name)
		}
		for _, f := range c.flags {
			if f.help == "" {
				t.Errorf("flag --%s of %s has no help", f.name, c.name)
			}
		}
		if c != &helpCmd && c.run == nil {
			t.Errorf("command %s has no runner", c.name)
		}
	}
}
