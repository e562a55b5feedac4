package lsp

import (
	"os"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestMain lets this test binary serve as the worker that check dry-runs
// plugin code in (docs/isolation.md): the diagnostics come from check.
func TestMain(m *testing.M) {
	starhost.ServeWorkerIfChild()
	os.Exit(m.Run())
}
