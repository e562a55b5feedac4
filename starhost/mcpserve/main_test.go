package mcpserve_test

import (
	"os"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestMain lets this test binary serve as the worker of plugins in process
// isolation (TestMCPProcessIsolationMemoryBomb re-executes it).
func TestMain(m *testing.M) {
	starhost.ServeWorkerIfChild()
	os.Exit(m.Run())
}
