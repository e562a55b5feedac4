package statusline

import (
	"strings"
	"testing"
)

var hostFields = []string{"model", "tokens"}

func TestCC15_NameRules(t *testing.T) {
	tests := []struct {
		name, want, err string
	}{
		{name: "queue", want: "queue"},
		{name: "Queue-2", want: "queue-2"},
		{name: "REVIEWS", want: "reviews"},
		{name: "a", want: "a"},
		{name: "a-b-c9", want: "a-b-c9"},
		{name: strings.Repeat("x", 32), want: strings.Repeat("x", 32)},
		{name: strings.Repeat("x", 33), err: `status field "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" is invalid: it has 33 characters, at most 32 are allowed`},
		{name: "", err: `status field "" is invalid: a name is required`},
		{name: "a--b", err: `status field "a--b" is invalid: "--" is not allowed`},
		{name: "-ab", err: `status field "-ab" is invalid: it must start with a letter`},
		{name: "ab-", err: `status field "ab-" is invalid: it must not end with "-"`},
		{name: "9lives", err: `status field "9lives" is invalid: it must start with a letter`},
		{name: "a_b", err: `status field "a_b" is invalid: '_' (U+005F) at character 2 is not allowed; use letters, digits or single hyphens`},
		{name: "a b", err: `status field "a b" is invalid: ' ' (U+0020) at character 2 is not allowed; use letters, digits or single hyphens`},
		{name: "café", err: `status field "café" is invalid: 'é' (U+00E9) at character 4 is not allowed; use letters, digits or single hyphens`},
		{name: "fіne", err: `status field "fіne" is invalid: 'і' (U+0456) at character 2 is not allowed; use letters, digits or single hyphens`},
		{name: "é", err: `status field "é" is invalid: it must start with a letter`},
		{name: "on", err: `status field "on" is reserved: on is a status line verb`},
		{name: "OFF", err: `status field "OFF" is reserved: off is a status line verb`},
		{name: "Reset", err: `status field "Reset" is reserved: reset is a status line verb`},
		{name: "model", err: `status field "model" is a built-in field`},
		{name: "MODEL", err: `status field "MODEL" is a built-in field`},
		{name: "model-x", want: "model-x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := admitName(tt.name, hostFields)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("admitName(%q) error = %v, want %s", tt.name, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("admitName(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
			}
		})
	}
}

func TestCC15_LongNameQuotedShort(t *testing.T) {
	_, err := admitName(strings.Repeat("y", 10000), nil)
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("error for a huge name must be short, got %d bytes", len(err.Error()))
	}
}

func TestCC15_DeclareFirstWins(t *testing.T) {
	b := NewBoard([]BuiltinField{{Name: "Model", Description: "Session model"}})
	acc, rej := b.Declare("acme.a", []FieldDecl{
		{Name: "Queue", Description: "Review queue"},
		{Name: "queue", Description: "again"},
		{Name: "model"},
		{Name: "off"},
		{Name: "bad--name"},
		{Name: "reviews", Description: "line\none"},
	})
	want := []Field{{"queue", "Review queue", "acme.a"}, {"reviews", "line one", "acme.a"}}
	if len(acc) != len(want) || acc[0] != want[0] || acc[1] != want[1] {
		t.Fatalf("accepted = %+v, want %+v", acc, want)
	}
	wantIdx := []int{1, 2, 3, 4}
	if len(rej) != len(wantIdx) {
		t.Fatalf("rejected = %+v", rej)
	}
	for i, r := range rej {
		if r.Index != wantIdx[i] || r.Err == nil {
			t.Errorf("rejection %d = %+v, want index %d", i, r, wantIdx[i])
		}
	}
	if got := rej[0].Err.Error(); got != `status field "queue" is declared twice by plugin acme.a; the first declaration is kept` {
		t.Errorf("duplicate message = %s", got)
	}

	acc, rej = b.Declare("acme.b", []FieldDecl{{Name: "QUEUE"}, {Name: "branch"}})
	if len(acc) != 1 || acc[0].Name != "branch" || len(rej) != 1 || rej[0].Index != 0 {
		t.Fatalf("second plugin: accepted %+v rejected %+v", acc, rej)
	}
	if got := rej[0].Err.Error(); got != `status field "queue" is already declared by plugin acme.a, which loaded first` {
		t.Errorf("taken message = %s", got)
	}

	// Withdrawing releases the name; the next declaration takes it.
	b.Withdraw("acme.a")
	if acc, _ := b.Declare("acme.b", []FieldDecl{{Name: "queue"}, {Name: "branch"}}); len(acc) != 2 {
		t.Fatalf("after withdraw: accepted %+v", acc)
	}
}

func TestCC15_RedeclareKeepsNamesAndOrder(t *testing.T) {
	b := NewBoard(nil)
	b.Declare("acme.a", []FieldDecl{{Name: "one"}, {Name: "two"}})
	b.Declare("acme.b", []FieldDecl{{Name: "three"}})
	// A reload of acme.a drops "two" and keeps "one" and its place.
	b.Declare("acme.a", []FieldDecl{{Name: "one"}, {Name: "four"}})
	var got []string
	for _, f := range b.Fields() {
		got = append(got, f.Plugin+"/"+f.Name)
	}
	if strings.Join(got, " ") != "acme.a/one acme.a/four acme.b/three" {
		t.Fatalf("fields = %v", got)
	}
	if acc, _ := b.Declare("acme.b", []FieldDecl{{Name: "two"}}); len(acc) != 1 {
		t.Fatalf("released name not available: %+v", acc)
	}
}
