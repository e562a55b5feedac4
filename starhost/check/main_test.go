package check

import (
	"os"
	"testing"

	"github.com/crystal-star/crystal-star/starhost"
)

// TestMain lets the test binary serve as a plugin worker: the dry runs of
// Plugins re-execute it (starhost.ServeWorkerIfChild).
func TestMain(m *testing.M) {
	starhost.ServeWorkerIfChild()
	os.Exit(m.Run())
}
