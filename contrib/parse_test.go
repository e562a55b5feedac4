package contrib

import "testing"

// ParseCatalog and ParseSite answer an unknown word with an error that names
// it, and a known one with nil.
func TestParseCatalogAndSite(t *testing.T) {
	for in, want := range map[string]Catalog{"plan": Plan, "work": Work, "plan_and_work": PlanAndWork} {
		if got, err := ParseCatalog(in); err != nil || got != want {
			t.Errorf("ParseCatalog(%q) = %v, %v; want %v, nil", in, got, err, want)
		}
	}
	if _, err := ParseCatalog("both"); err == nil || err.Error() != `catalog "both" is not plan, work or plan_and_work` {
		t.Errorf("ParseCatalog(both) error = %v", err)
	}
	if got, err := ParseSite("review"); err != nil || got != SiteReview {
		t.Errorf("ParseSite(review) = %v, %v", got, err)
	}
	if _, err := ParseSite("chat"); err == nil {
		t.Error("ParseSite(chat) = nil error, want one")
	}
}
