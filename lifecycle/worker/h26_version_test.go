package worker

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib"
)

// A worker of another build (its hello names protocol "1") is refused
// before it serves anything, and the failure names both versions
// (issue 26, point 2: frames changed, wire.Version moved to "2").
func TestH26_2_HostRefusesAnotherBuildsWorker(t *testing.T) {
	a := testActivator("other-build", 0, nil)
	want := `protocol version mismatch: this host speaks "2", the worker "1"; the host and the worker come from different builds`
	err := a.Compile(testRequest(nil))
	var ae *contrib.ActivationError
	if !errors.As(err, &ae) || len(ae.Diagnostics) != 1 || ae.Diagnostics[0].Code != contrib.WorkerFailed ||
		!strings.Contains(ae.Diagnostics[0].Message, want) {
		t.Fatalf("Compile = %v, want WorkerFailed containing %q", err, want)
	}
	if _, err := a.Activate(context.Background(), testRequest(nil)); !errors.As(err, &ae) || !strings.Contains(ae.Diagnostics[0].Message, want) {
		t.Fatalf("Activate = %v, want the same refusal", err)
	}
}
