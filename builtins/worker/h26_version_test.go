package worker

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/crystal-star/crystal-star/contrib/wire"
)

// A worker started by a host of another build (EnvWorker names protocol
// "1") refuses to serve, exits 3, and says why with both versions (issue
// 26, point 2).
func TestH26_2_WorkerRefusesAnotherBuildsHost(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), wire.EnvWorker+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("the worker ended with %v, want exit status 3", err)
	}
	want := `crystal-star worker: protocol version mismatch: this worker speaks "2", the host "1"; the host and the worker come from different builds`
	if !strings.Contains(stderr.String(), want) {
		t.Fatalf("stderr = %q, want %q", stderr.String(), want)
	}
}
