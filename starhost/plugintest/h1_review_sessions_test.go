package plugintest_test

import (
	"context"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
	"github.com/crystal-star/crystal-star/starhost/plugintest"
)

// TestH1_6_ReviewCountIsPerSession runs the example plugin plugins/review in
// two sessions of one host: its "reviews" field ("Reviews summarized this
// session") counts each session's own reviews, although ctx.store is shared
// by every session of the host.
func TestH1_6_ReviewCountIsPerSession(t *testing.T) {
	h := plugintest.NewHost(t, "../../plugins/review", plugintest.Options{})
	ctx := context.Background()
	session := func(id, mode string) *starhost.Session {
		s, err := h.Host.NewSession(ctx, starhost.SessionOptions{Facts: starhost.Facts{SessionID: id, Mode: mode}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.End(ctx) })
		return s
	}
	plan, work := session("plan-1", "plan"), session("work-1", "work")
	review := func(s *starhost.Session) {
		t.Helper()
		res := s.Thread("").Tools(ctx, starhost.PlanAndWork).Invoke(ctx, "review_summary", []byte(`{"text": "looks good"}`))
		if !res.OK() {
			t.Fatalf("review_summary: %v", res.Err())
		}
	}
	reviews := func(s *starhost.Session) string { return s.RenderStatusLine([]string{"reviews"}) }

	if got := reviews(work); got != "0 reviewed" {
		t.Fatalf("before any review, work session shows %q, want the attach text %q", got, "0 reviewed")
	}
	review(plan)
	review(work)
	review(work)
	if got := reviews(plan); got != "1 reviewed" {
		t.Errorf("plan session shows %q, want %q", got, "1 reviewed")
	}
	if got := reviews(work); got != "2 reviewed" {
		t.Errorf("work session shows %q, want %q (its own two, not the plan session's)", got, "2 reviewed")
	}
	if got := reviews(session("other", "work")); got != "0 reviewed" {
		t.Errorf("a session with no review shows %q, want %q", got, "0 reviewed")
	}
}
