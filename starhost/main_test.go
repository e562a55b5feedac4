package starhost

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as a plugin worker: Check and hosts
// in process isolation re-execute it (ServeWorkerIfChild).
func TestMain(m *testing.M) {
	ServeWorkerIfChild()
	os.Exit(m.Run())
}
