package agenthosts

import (
	"context"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestH27_1_ClosedHostTakesTheSafeAnswers: when no host session can be
// started (the host is closed), every moment of an agent session takes its
// event's safe answer instead of using a missing session: the tool call is
// denied with the reason, the others leave the agent host's values as
// they are.
func TestH27_1_ClosedHostTakesTheSafeAnswers(t *testing.T) {
	h, err := starhost.New(starhost.Options{Home: t.TempDir(), Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	h.Close(ctx)
	s := &Session{Host: h, ID: "closed", Workspace: t.TempDir()}
	if _, err := s.HostSession(ctx); err == nil {
		t.Fatal("a closed host started a session")
	}
	if d := s.PreTool(ctx, "Bash", "t1", []byte(`{"command":"ls"}`)); d.Verdict != Deny || !strings.Contains(d.Reason, "could not run the policy") {
		t.Errorf("PreTool on a closed host: %+v, want a denial that says why", d)
	}
	if out, changed := s.PostTool(ctx, "Bash", "t1", nil, "result"); out != "result" || changed {
		t.Errorf("PostTool: %q, %v; want the agent host's result unchanged", out, changed)
	}
	if got := s.SessionContext(ctx); got != "" {
		t.Errorf("SessionContext: %q", got)
	}
	if turn := s.TurnStarted(ctx, "hi"); turn.Text != "hi" || turn.Added != "" {
		t.Errorf("TurnStarted: %+v; want the prompt as it is", turn)
	}
	if got := s.Compaction(ctx, "keep it short"); got != "keep it short" {
		t.Errorf("Compaction: %q", got)
	}
	if got := s.StatusLine(); got != "" {
		t.Errorf("StatusLine: %q", got)
	}
	s.TurnFinished(ctx, "", "done", "end_turn")
	s.End(ctx)
}
