package starhost

import (
	"io"
	"os"
	"testing"
)

// echoChild makes the test binary the raw floor of a process-isolated
// call (BenchmarkIsolationInvoke/Trivial/pipe): 64-byte messages echoed
// over stdin and stdout with blocking reads, no protocol.
const echoChild = "CRYSTAL_STAR_TEST_ECHO"

func echo() {
	buf := make([]byte, 64)
	for {
		if _, err := io.ReadFull(os.Stdin, buf); err != nil {
			os.Exit(0)
		}
		if _, err := os.Stdout.Write(buf); err != nil {
			os.Exit(0)
		}
	}
}

// TestMain lets the test binary serve as a plugin worker: Check and hosts
// in process isolation re-execute it (ServeWorkerIfChild).
func TestMain(m *testing.M) {
	if os.Getenv(echoChild) != "" {
		echo()
	}
	ServeWorkerIfChild()
	os.Exit(m.Run())
}
