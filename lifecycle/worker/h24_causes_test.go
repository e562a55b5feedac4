package worker

import (
	"testing"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
)

// TestH24_10_WorkerDeathSaysWhoseFault: a call ended by its worker's death
// carries whose fault it was. The call whose own deadline killed the worker
// timed out; every other call in flight when the worker died — a memory
// kill (which the host cannot attribute to a call), another call's
// deadline, a crash — is worker_failed, and its message says the worker
// was killed while it ran instead of naming a limit as if the call had
// exceeded it.
func TestH24_10_WorkerDeathSaysWhoseFault(t *testing.T) {
	t.Run("memory kill, alone", func(t *testing.T) {
		inst, _ := activate(t, "serve", 0)
		res := call(inst, "oom")
		if res.Err == nil || res.Err.Cause != contrib.CauseWorkerFailed || res.Err.Message != "tool t: the worker running this call was killed (memory_limit 1GiB exceeded)" {
			t.Errorf("result %+v; want cause worker_failed", res.Err)
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
				res.Err.Message != "tool t: the worker running this call was killed (memory_limit 1GiB exceeded)" {
				t.Errorf("result %+v; want cause worker_failed, the worker killed while it ran", res.Err)
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
			if res.Err.Cause == contrib.CauseWorkerFailed && res.Err.Message != "tool t: the worker running this call was killed (tool t: callback_timeout 1s exceeded)" {
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
