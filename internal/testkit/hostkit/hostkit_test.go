package hostkit

import (
	"context"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/internal/testkit"
	"github.com/crystal-star/crystal-star/starhost"
)

// Start gives a started host over fresh directories whose notes reach both
// the returned Log and the caller's own Notes.
func TestStartRecordsNotes(t *testing.T) {
	dir := testkit.Plugin{ID: "acme.hi", Source: "print(\"hello\")\ncontribute()\n"}.Write(t, t.TempDir()+"/hi")
	var also testkit.Log[starhost.Note]
	h, notes := Start(t, starhost.Options{Dev: []string{dir}, Notes: also.Add})
	if ps := h.Plugins(); len(ps) != 1 || ps[0].State != "active" {
		t.Fatalf("plugins = %+v, want acme.hi active", ps)
	}
	if !strings.Contains(notes.String(), "print: hello") || also.Len() != notes.Len() {
		t.Fatalf("notes %q, the caller's %d; want the print note in both", notes, also.Len())
	}
	if s, err := h.NewSession(context.Background(), starhost.SessionOptions{}); err != nil || s.Facts().Workspace == "" {
		t.Fatal("no workspace")
	}
}
