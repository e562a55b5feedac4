package trust

import (
	"testing"
	"time"
)

const (
	fpA = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	fpB = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	fpC = "sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
)

func TestDC17_Verdict(t *testing.T) {
	f := &File{Version: 1, Grants: []Grant{
		{ID: "acme.one", Fingerprint: fpA},
		{ID: "acme.two", Fingerprint: fpB},
	}}
	cases := []struct {
		id, fp string
		want   Verdict
	}{
		{"acme.one", fpA, Trusted},
		{"acme.one", fpB, Modified},
		{"acme.two", fpB, Trusted},
		{"acme.two", fpA, Modified},
		{"acme.three", fpA, untrusted},
		{"", fpA, untrusted},
	}
	for _, c := range cases {
		t.Run(c.id+" "+c.fp[7:10], func(t *testing.T) {
			if got := f.Verdict(c.id, c.fp); got != c.want {
				t.Errorf("Verdict(%s, %s) = %v, want %v", c.id, c.fp[:9], got, c.want)
			}
		})
	}
	var none *File
	if got := none.Verdict("acme.one", fpA); got != untrusted {
		t.Errorf("nil File: %v, want untrusted", got)
	}
	if got := (&File{Version: 1}).Verdict("acme.one", fpA); got != untrusted {
		t.Errorf("empty File: %v, want untrusted", got)
	}
}

func TestDC17_OneIDMayHaveSeveralFingerprints(t *testing.T) {
	f := &File{Version: 1, Grants: []Grant{
		{ID: "acme.one", Fingerprint: fpA},
		{ID: "acme.one", Fingerprint: fpB},
		{ID: "acme.other", Fingerprint: fpC},
	}}
	for _, fp := range []string{fpA, fpB} {
		if got := f.Verdict("acme.one", fp); got != Trusted {
			t.Errorf("Verdict(acme.one, %s) = %v, want trusted", fp[:9], got)
		}
	}
	if got := f.Verdict("acme.one", fpC); got != Modified {
		t.Errorf("another id's fingerprint: %v, want modified", got)
	}
	grants := f.grantsFor("acme.one")
	if len(grants) != 2 || grants[0].Fingerprint != fpA || grants[1].Fingerprint != fpB {
		t.Fatalf("GrantsFor = %+v", grants)
	}
	grants[0].Fingerprint = fpC
	if f.Grants[0].Fingerprint != fpA {
		t.Error("GrantsFor returned the File's own slice")
	}
	if got := f.grantsFor("acme.none"); got != nil {
		t.Errorf("GrantsFor(unknown) = %+v, want nil", got)
	}
}

func TestDC17_VerdictStrings(t *testing.T) {
	for v, want := range map[Verdict]string{Trusted: "trusted", untrusted: "untrusted", Modified: "modified", Verdict(9): "Verdict(9)"} {
		if v.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(v), v.String(), want)
		}
	}
}

func TestDC19_WrittenFormIsSortedAndDeduplicated(t *testing.T) {
	early := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f := &File{Grants: []Grant{
		{ID: "b", Fingerprint: fpA, GrantedAt: early.Add(time.Hour)},
		{ID: "a", Fingerprint: fpB},
		{ID: "b", Fingerprint: fpA, GrantedAt: early},
		{ID: "a", Fingerprint: fpA},
	}}
	f.normalize()
	want := []Grant{{ID: "a", Fingerprint: fpA}, {ID: "a", Fingerprint: fpB}, {ID: "b", Fingerprint: fpA, GrantedAt: early}}
	if f.Version != 1 || len(f.Grants) != len(want) {
		t.Fatalf("normalize = %+v", f)
	}
	for i := range want {
		if f.Grants[i] != want[i] {
			t.Errorf("grant %d = %+v, want %+v", i, f.Grants[i], want[i])
		}
	}
}
