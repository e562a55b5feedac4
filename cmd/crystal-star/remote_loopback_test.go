package main

import (
	"bytes"
	"strings"
	"testing"
)

// An executor listening on a name that merely starts with "127." is not
// on loopback: it requires the bearer token like any other address,
// checked before anything listens or resolves.
func TestH28_2_ExecutorTokenOffLoopback(t *testing.T) {
	t.Setenv(executorTokenEnv, "")
	for _, addr := range []string{"127.example.invalid:0", "0.0.0.0:0"} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"--home", t.TempDir(), "executor", "--http", addr}, strings.NewReader(""), &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), "is not loopback: set $"+executorTokenEnv) {
			t.Errorf("executor --http %s without a token: exit %d, stderr %q; want refused as not loopback", addr, code, stderr.String())
		}
	}
}
