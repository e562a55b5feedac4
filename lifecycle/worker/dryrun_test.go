package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// fakeDryRun answers a dry run as the plugin's name says: acme.hang never
// answers, acme.exit crashes the worker, acme.refuse is refused (the
// worker lives on); any other plugin stages one tool named after it.
func fakeDryRun(body []byte) (any, error) {
	var b wire.Bundle
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	switch b.Plugin {
	case "acme.hang":
		select {}
	case "acme.exit":
		fmt.Fprintln(os.Stderr, "panic: fake crash")
		os.Exit(2)
	case "acme.refuse":
		return nil, errors.New("refused")
	}
	return wire.Activated{Tools: []contrib.Tool{{Name: strings.TrimPrefix(b.Plugin, "acme."), Catalogs: contrib.Work}}}, nil
}

// TestDryRunnerOneWorkerUntilAFault: dry runs share one worker; a crash or
// a timeout fails only the dry run that caused it, with its code, and the
// next dry run starts a fresh worker; a refused dry run and closing a dry
// run's instance keep the worker.
func TestDryRunnerOneWorkerUntilAFault(t *testing.T) {
	var started atomic.Int32
	d := testActivator("dryrun", 2*time.Second, nil).DryRunner(func() { started.Add(1) })
	t.Cleanup(d.Close)
	run := func(plugin string) (contrib.Instance, error) {
		req := testRequest(nil)
		req.Plugin = plugin
		return d.DryRun(context.Background(), req)
	}
	wantTool := func(plugin, tool string) {
		t.Helper()
		inst, err := run(plugin)
		if err != nil {
			t.Fatalf("%s: %v", plugin, err)
		}
		if tools := inst.Set().Tools; len(tools) != 1 || tools[0].Name != tool {
			t.Fatalf("%s: tools %v, want %s", plugin, tools, tool)
		}
		inst.Close() // must not end the shared worker
	}
	wantFailure := func(plugin string, code contrib.Code, msg string) {
		t.Helper()
		_, err := run(plugin)
		var ae *contrib.ActivationError
		if !errors.As(err, &ae) || len(ae.Diagnostics) != 1 || ae.Diagnostics[0].Code != code ||
			!strings.Contains(ae.Diagnostics[0].Message, msg) || ae.Diagnostics[0].Plugin != plugin {
			t.Fatalf("%s: %v, want %s containing %q", plugin, err, code, msg)
		}
	}
	wantStarted := func(n int32) {
		t.Helper()
		if got := started.Load(); got != n {
			t.Fatalf("%d workers started, want %d", got, n)
		}
	}

	wantStarted(0) // none before the first dry run
	wantTool("acme.one", "one")
	wantTool("acme.two", "two")
	wantStarted(1)
	wantFailure("acme.exit", contrib.WorkerFailed, "fake crash")
	wantTool("acme.three", "three")
	wantStarted(2)
	wantFailure("acme.refuse", contrib.WorkerFailed, "refused")
	wantTool("acme.four", "four")
	wantStarted(2)
	wantFailure("acme.hang", contrib.CallbackTimeout, "module: callback_timeout 2s exceeded")
	wantTool("acme.five", "five")
	wantStarted(3)
}
