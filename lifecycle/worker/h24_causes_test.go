package worker

import (
	"strings"
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
)

// TestH24_10_WorkerDeathSaysWhoseFault: a call ended by its worker's death
// carries whose fault it was. The call whose own deadline killed the worker
// timed out; a memory kill with no other call in flight is the call's own;
// every other call in flight when the worker died — another call's
// deadline, a memory kill while several ran, a crash — is worker_failed,
// and its message says it was cancelled with the worker instead of naming
// a limit as if it had exceeded it.
func TestH24_10_WorkerDeathSaysWhoseFault(t *testing.T) {
	t.Run("memory kill, alone", func(t *testing.T) {
		inst, _ := activate(t, "serve", 0)
		res := call(inst, "oom")
		if res.Err == nil || res.Err.Cause != contrib.CauseMemoryLimit || res.Err.Message != "tool t: memory_limit 1GiB exceeded: the worker was killed" {
			t.Errorf("result %+v; want cause memory_limit", res.Err)
		}
	})
	t.Run("memory kill, among others", func(t *testing.T) {
		inst, _ := activate(t, "serve", 0)
		results := make(chan contrib.Result, 3)
		for range 2 {
			go func() { results <- call(inst, "hang") }()
		}
		go func() { results <- call(inst, "oom-after-2") }()
		for range 3 {
			res := <-results
			if res.Err == nil || res.Err.Cause != contrib.CauseWorkerFailed ||
				res.Err.Message != "tool t: cancelled with the worker, which was killed while this call ran: memory_limit 1GiB exceeded: the worker was killed" {
				t.Errorf("result %+v; want cause worker_failed, cancelled with the worker", res.Err)
			}
		}
	})
	t.Run("another call's deadline", func(t *testing.T) {
		inst, _ := activate(t, "serve", time.Second)
		results := make(chan contrib.Result, 2)
		for range 2 {
			go func() { results <- call(inst, "hang") }()
		}
		causes := map[string]int{}
		for range 2 {
			res := <-results
			if res.Err == nil {
				t.Fatalf("a hanging call succeeded: %+v", res)
			}
			causes[res.Err.Cause]++
			if res.Err.Cause == contrib.CauseWorkerFailed && !strings.HasPrefix(res.Err.Message, "tool t: cancelled with the worker, which was killed while this call ran: tool t: callback_timeout 1s exceeded") {
				t.Errorf("the other call: %q", res.Err.Message)
			}
		}
		if causes[contrib.CauseCallbackTimeout] != 1 || causes[contrib.CauseWorkerFailed] != 1 {
			t.Errorf("causes %v; want one callback_timeout (the call whose deadline killed the worker) and one worker_failed", causes)
		}
	})
	t.Run("crash", func(t *testing.T) {
		inst, _ := activate(t, "serve", 0)
		if res := call(inst, "exit"); res.Err == nil || res.Err.Cause != contrib.CauseWorkerFailed {
			t.Errorf("result %+v; want cause worker_failed", res.Err)
		}
	})
}
