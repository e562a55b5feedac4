package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var grantTime = time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("X", 3600))

func newTestStore(t *testing.T) *Store {
	t.Helper()
	return NewStore(filepath.Join(t.TempDir(), "home", "plugin-trust.json"))
}

func mustGrant(t *testing.T, s *Store, id, fp string) {
	t.Helper()
	if err := s.Grant(id, fp, grantTime); err != nil {
		t.Fatalf("Grant(%s, %s) = %v", id, fp[:9], err)
	}
}

func TestDC19_MissingFileIsEmpty(t *testing.T) {
	s := newTestStore(t)
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 1 || len(f.Grants) != 0 {
		t.Errorf("Load of a missing file = %+v", f)
	}
	if _, err := os.Stat(filepath.Dir(s.Path())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load created the directory: %v", err)
	}
}

func TestDC19_RoundTrip(t *testing.T) {
	s := newTestStore(t)
	mustGrant(t, s, "acme.two", fpB)
	mustGrant(t, s, "acme.one", fpB)
	mustGrant(t, s, "acme.one", fpA)

	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	stamp := grantTime.UTC().Truncate(time.Second)
	want := []Grant{{"acme.one", fpA, stamp}, {"acme.one", fpB, stamp}, {"acme.two", fpB, stamp}}
	if f.Version != 1 || len(f.Grants) != len(want) {
		t.Fatalf("Load = %+v", f)
	}
	for i, g := range f.Grants {
		if g.ID != want[i].ID || g.Fingerprint != want[i].Fingerprint || !g.GrantedAt.Equal(want[i].GrantedAt) {
			t.Errorf("grant %d = %+v, want %+v", i, g, want[i])
		}
	}
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"granted_at": "2026-03-04T04:06:07Z"`)) || !bytes.HasSuffix(data, []byte("}\n")) {
		t.Errorf("written form:\n%s", data)
	}
	info, err := os.Stat(s.Path())
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("trust file mode = %v, %v; want 0600", info.Mode(), err)
	}
}

func TestDC19_GrantTwiceIsNoChange(t *testing.T) {
	s := newTestStore(t)
	mustGrant(t, s, "acme.one", fpA)
	before, _ := os.ReadFile(s.Path())
	if err := s.Grant("acme.one", fpA, grantTime.Add(time.Hour)); !errors.Is(err, ErrNoChange) {
		t.Fatalf("second Grant = %v; want ErrNoChange", err)
	}
	after, _ := os.ReadFile(s.Path())
	if !bytes.Equal(before, after) {
		t.Errorf("no_change grant rewrote the file:\n%s\n%s", before, after)
	}
}

func TestDC19_GrantRejectsMalformedInput(t *testing.T) {
	s := newTestStore(t)
	for _, c := range []struct{ name, id, fp string }{
		{"no id", "", fpA}, {"no fingerprint", "acme.one", ""},
		{"short fingerprint", "acme.one", "sha256:abc"}, {"upper-case fingerprint", "acme.one", strings.ToUpper(fpA)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := s.Grant(c.id, c.fp, grantTime); err == nil {
				t.Errorf("Grant(%q, %q) succeeded", c.id, c.fp)
			}
		})
	}
	if _, err := os.Stat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a rejected grant wrote the file: %v", err)
	}
}

func TestDC19_UnreadableFileIsNeverOverwritten(t *testing.T) {
	cases := map[string]string{
		"truncated":         `{"version": 1, "grants": [`,
		"not json":          "id = \"acme.one\"\n",
		"empty":             "",
		"future version":    `{"version": 2, "grants": []}`,
		"no version":        `{"grants": []}`,
		"unknown key":       `{"version": 1, "grants": [], "trust_all": true}`,
		"unknown grant key": `{"version": 1, "grants": [{"id": "a", "fingerprint": "` + fpA + `", "scope": "x"}]}`,
		"empty id":          `{"version": 1, "grants": [{"id": "", "fingerprint": "` + fpA + `"}]}`,
		"wrong type":        `{"version": "1", "grants": []}`,
		"trailing data":     `{"version": 1, "grants": []} {}`,
	}
	for name, content := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			s := newTestStore(t)
			os.MkdirAll(filepath.Dir(s.Path()), 0o700)
			if err := os.WriteFile(s.Path(), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := s.Load()
			assertUnreadable(t, s, err)
			err = s.Grant("acme.one", fpA, grantTime)
			assertUnreadable(t, s, err)
			err = s.Revoke("acme.one", fpA)
			assertUnreadable(t, s, err)
			if got, _ := os.ReadFile(s.Path()); string(got) != content {
				t.Errorf("file changed to %q", got)
			}
		})
	}
}

func assertUnreadable(t *testing.T, s *Store, err error) {
	t.Helper()
	var u *unreadableError
	if !errors.As(err, &u) {
		t.Fatalf("error %v (%T) is not an *UnreadableError", err, err)
	}
	if u.Path != s.Path() || !strings.Contains(err.Error(), s.Path()) || !strings.HasSuffix(err.Error(), "; fix or remove it by hand") {
		t.Errorf("error does not name the file or the remedy: %v", err)
	}
}

func TestDC19_SyntaxErrorNamesLineAndColumn(t *testing.T) {
	s := newTestStore(t)
	os.MkdirAll(filepath.Dir(s.Path()), 0o700)
	os.WriteFile(s.Path(), []byte("{\n  \"version\": 1,\n  \"grants\": [,]\n}\n"), 0o600)
	_, err := s.Load()
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		t.Fatalf("Load error %v does not unwrap to *json.SyntaxError", err)
	}
	if !strings.Contains(err.Error(), "line 3, column 14 (offset 31)") {
		t.Errorf("error lacks the position: %v", err)
	}
}

func TestDC19_DirectoryForFileIsUnreadable(t *testing.T) {
	s := newTestStore(t)
	if err := os.MkdirAll(s.Path(), 0o700); err != nil {
		t.Fatal(err)
	}
	err := s.Grant("acme.one", fpA, grantTime)
	assertUnreadable(t, s, err)
	if info, err := os.Stat(s.Path()); err != nil || !info.IsDir() {
		t.Errorf("the directory was replaced: %v, %v", info, err)
	}
}

func TestDC19_LockFailureLeavesTheFileIntact(t *testing.T) {
	s := newTestStore(t)
	mustGrant(t, s, "acme.one", fpA)
	before, _ := os.ReadFile(s.Path())
	os.Remove(s.Path() + ".lock")
	if err := os.Mkdir(s.Path()+".lock", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.Grant("acme.two", fpB, grantTime); err == nil {
		t.Fatal("Grant succeeded without its lock")
	}
	if after, _ := os.ReadFile(s.Path()); !bytes.Equal(before, after) {
		t.Errorf("file changed:\n%s", after)
	}
}

func TestDC19_ConcurrentGoroutinesNeverLoseAGrant(t *testing.T) {
	s := newTestStore(t)
	ids := []string{"g.a", "g.b", "g.c", "g.d", "g.e", "g.f", "g.g", "g.h"}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if err := NewStore(s.Path()).Grant(id, fpA, grantTime); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	assertGrantedAll(t, s, ids)
}

func assertGrantedAll(t *testing.T, s *Store, ids []string) {
	t.Helper()
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Grants) != len(ids) {
		t.Errorf("%d grants, want %d: %+v", len(f.Grants), len(ids), f.Grants)
	}
	for _, id := range ids {
		if f.Verdict(id, fpA) != Trusted {
			t.Errorf("grant of %s was lost", id)
		}
	}
}

func TestDC21_RevokeRemovesExactlyOnePair(t *testing.T) {
	s := newTestStore(t)
	mustGrant(t, s, "acme.one", fpA)
	mustGrant(t, s, "acme.one", fpB)
	mustGrant(t, s, "acme.two", fpA)
	if err := s.Revoke("acme.one", fpA); err != nil {
		t.Fatalf("Revoke = %v", err)
	}
	f, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, fp string
		want   Verdict
	}{{"acme.one", fpA, Modified}, {"acme.one", fpB, Trusted}, {"acme.two", fpA, Trusted}} {
		if got := f.Verdict(c.id, c.fp); got != c.want {
			t.Errorf("after revoke: Verdict(%s, %s) = %v, want %v", c.id, c.fp[:9], got, c.want)
		}
	}
	if len(f.Grants) != 2 {
		t.Errorf("grants = %+v", f.Grants)
	}
	if err := s.Revoke("acme.one", fpB); err != nil {
		t.Fatal(err)
	}
	if f, _ := s.Load(); f.Verdict("acme.one", fpB) != untrusted {
		t.Error("revoking the last grant of an id should leave it untrusted")
	}
}

func TestDC21_RevokeAbsentIsNoChange(t *testing.T) {
	s := newTestStore(t)
	if err := s.Revoke("acme.one", fpA); !errors.Is(err, ErrNoChange) {
		t.Fatalf("Revoke with no home = %v; want ErrNoChange", err)
	}
	if _, err := os.Stat(filepath.Dir(s.Path())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Revoke created the home: %v", err)
	}
	mustGrant(t, s, "acme.one", fpA)
	before, _ := os.ReadFile(s.Path())
	for _, c := range []struct{ id, fp string }{{"acme.one", fpB}, {"acme.two", fpA}} {
		if err := s.Revoke(c.id, c.fp); !errors.Is(err, ErrNoChange) {
			t.Errorf("Revoke(%s, %s) = %v; want ErrNoChange", c.id, c.fp[:9], err)
		}
	}
	if after, _ := os.ReadFile(s.Path()); !bytes.Equal(before, after) {
		t.Errorf("no_change revoke rewrote the file")
	}
}
