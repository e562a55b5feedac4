package trust

import (
	"fmt"
	"testing"
)

// TestDC17_IndexAgreesWithVerdict: the index admission uses gives the
// verdict File.Verdict gives, for granted, modified and unknown plugins,
// whatever the order of the grants.
func TestDC17_IndexAgreesWithVerdict(t *testing.T) {
	f := &File{Version: 1}
	for i := range 50 {
		for j := range i % 3 {
			f.Grants = append(f.Grants, Grant{ID: fmt.Sprintf("acme.p%d", (i*7)%50), Fingerprint: fmt.Sprintf("sha256:%d-%d", i, j)})
		}
	}
	x := f.Index()
	for i := range 60 {
		id := fmt.Sprintf("acme.p%d", i)
		for _, fp := range []string{fmt.Sprintf("sha256:%d-0", i), fmt.Sprintf("sha256:%d-1", (i*43)%50), "sha256:none"} {
			if got, want := x.Verdict(id, fp), f.Verdict(id, fp); got != want {
				t.Errorf("Index.Verdict(%s, %s) = %v, File.Verdict = %v", id, fp, got, want)
			}
		}
	}
	if v := (*File)(nil).Index().Verdict("acme.x", "sha256:x"); v != untrusted {
		t.Errorf("a nil file's index: %v, want untrusted", v)
	}
}
