package builtins

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// DefaultStepBudget is the default step budget of one run: the module's
// top level, or one callback. About a second of pure Starlark on this
// project's reference machine, idle (a plain loop with a branch runs some
// 100 million steps a second there: BenchmarkH26_7_StepRate), so a tool
// that scans a large diff fits; callback_timeout stays the wall-clock
// guard. A run that exceeds it is cancelled with TooManySteps.
const DefaultStepBudget = 100_000_000

// runState is what one run learns about itself; it is shared by pointer with
// the thread's callbacks.
type runState struct {
	stepsExceeded bool
	overSteps     int          // steps run past the budget, waiting for a precise position
	cause         atomic.Int32 // why it was cancelled from outside: causeMemory, causeCollateral, causeTimeout
	// allocated is what the allocation guards saw this run allocate in
	// steps of evidenceMin or more: the watchdog's evidence of which run
	// was growing a heap several runs share (watchdog.go).
	allocated atomic.Uint64
	// waiting counts the host calls the run is blocked in (a model call):
	// meanwhile it runs no plugin code, so it grows no heap (watchdog.go).
	waiting atomic.Int32
	// asking counts the questions the run waits on (ctx.ask) and paused
	// sums the nanoseconds spent on finished ones: the person's time is
	// not the callback's, so callback_timeout does not count it.
	asking atomic.Int32
	paused atomic.Int64
	owner  *instance // the generation the run belongs to
}

// hostWait marks th's run as waiting in a host call until done is called.
func hostWait(th *starlark.Thread) (done func()) {
	st, _ := th.Local(localRun).(*runState)
	if st == nil {
		return func() {}
	}
	st.waiting.Add(1)
	return func() { st.waiting.Add(-1) }
}

// maxGraceSteps bounds how far past its budget a run may go while the
// cancellation waits for an instruction with a source position of its own.
const maxGraceSteps = 64

// preciseFrame reports whether the innermost frame stands at a real source
// position. Some instructions, such as a loop's backward jump, have none and
// report the position of their function's def line; cancelling there would
// point the TooManySteps diagnostic at the def instead of the loop.
func preciseFrame(t *starlark.Thread) bool {
	fr := t.DebugFrame(0)
	fn, ok := fr.Callable().(*starlark.Function)
	return !ok || fr.Position() != fn.Position()
}

const (
	localRun     = "crystal.run"
	localContext = "crystal.context"
)

// threadContext returns the context of the run th belongs to: a builtin
// that blocks in Go (an HTTP call) must return when it ends, since
// cancelling the thread alone does not interrupt Go code.
func threadContext(th *starlark.Thread) context.Context {
	if ctx, ok := th.Local(localContext).(context.Context); ok {
		return ctx
	}
	return context.Background()
}

// newThread returns a thread bound to inst with the given step budget.
func (inst *instance) newThread(name string) (*starlark.Thread, *runState) {
	st := &runState{owner: inst}
	// The hooks are plain functions that find the run through the thread:
	// a closure each would be an allocation per call.
	th := &starlark.Thread{Name: name, Print: printNote, Load: noLoad, OnMaxSteps: overSteps}
	th.SetMaxExecutionSteps(inst.steps)
	th.SetLocal(localInstance, inst)
	th.SetLocal(localRun, st)
	return th, st
}

// reuseThread is newThread for a callback: under the watchdog, a thread
// an earlier run of inst left in good order is taken again, reset, with a
// run state of its own. A fresh thread costs four allocations (the thread,
// its locals map and the map's table) and its first call two more (a frame
// and the stack), a third of a trivial tool call's (issue 26, point 4).
func (inst *instance) reuseThread(name string) (*starlark.Thread, *runState) {
	if !inst.watched() {
		return inst.newThread(name)
	}
	th, _ := inst.threads.Get().(*starlark.Thread)
	if th == nil {
		return inst.newThread(name)
	}
	st := &runState{owner: inst}
	th.Name = name
	th.Steps = 0
	th.SetMaxExecutionSteps(inst.steps)
	th.Uncancel() // Cancel is not expected on a recycled thread; belt and braces
	th.SetLocal(localRun, st)
	return th, st
}

// recycle keeps th for reuseThread once its run ended without an error.
// Only a watched run's thread is kept: after watchdog.disarm nothing
// outside the run holds or cancels it (the watchdog cancels only runs
// still registered, under its lock). A run that failed, was cancelled or
// panicked leaves its thread to the collector.
func (inst *instance) recycle(th *starlark.Thread) {
	if !inst.watched() || th.CallStackDepth() != 0 {
		return
	}
	th.SetLocal(localContext, nil) // hold no caller's context in the pool
	th.SetLocal(localRun, nil)
	inst.threads.Put(th)
}

// watched reports whether inst's runs are under the watchdog (a heap
// budget or a callback_timeout), rather than bound to ctx by a callback.
func (inst *instance) watched() bool { return inst.memLimit > 0 || inst.timeout > 0 }

// printNote turns print() into a note of the thread's plugin.
func printNote(t *starlark.Thread, msg string) {
	if inst, _ := t.Local(localInstance).(*instance); inst != nil {
		inst.note(contrib.Diag(contrib.PrintNote, inst.req.Plugin, callerPos(t, 0), "print: %s", msg))
	}
}

func noLoad(*starlark.Thread, string) (starlark.StringDict, error) {
	return nil, errors.New("load() is only allowed at the top level of a module")
}

// overSteps records that the run used up its step budget and cancels it
// at the first instruction with a source position of its own.
func overSteps(t *starlark.Thread) {
	st, _ := t.Local(localRun).(*runState)
	if st == nil {
		t.Cancel("too many steps")
		return
	}
	st.stepsExceeded = true
	st.overSteps++
	if st.overSteps > maxGraceSteps || preciseFrame(t) {
		t.Cancel("too many steps")
	}
}

// runFailure is the error of a failed run, already shaped as a diagnostic.
// reason is what a caller may be told (a tool result's message): the cause
// and the plugin position, never the plugin's own error text (DC6).
type runFailure struct {
	diag   contrib.Diagnostic
	reason string
	cause  string // contrib.Cause*: whose fault, for a tool result; "" for the run's own error
}

func (f *runFailure) Error() string { return f.diag.String() }

// Diagnostic returns the failure as a diagnostic (the lifecycle records it
// as is).
func (f *runFailure) Diagnostic() contrib.Diagnostic { return f.diag }

// guarded runs fn on th bound to ctx: cancelling ctx cancels the thread, a
// panic in any Go builtin below is recovered, and every error comes back as a
// *runFailure with the code, position and backtrace of the failure.
func (inst *instance) guarded(ctx context.Context, th *starlark.Thread, st *runState, what string, fn func() error) (err error) {
	// The heap budget, callback_timeout and the end of ctx are enforced by
	// the watchdog's ticker (within a tick, 2 ms): no timer, context or
	// context callback per run. Without the watchdog, ctx is bound directly.
	if inst.watched() {
		watchdog.arm(ctx, th, st, inst.memLimit, inst.timeout)
		defer watchdog.disarm(st)
		if ctx.Err() != nil { // ended already: no need to wait for a tick
			th.Cancel(cancelReason(ctx))
		}
	} else {
		stop := context.AfterFunc(ctx, func() { th.Cancel(cancelReason(ctx)) })
		defer stop()
	}
	th.SetLocal(localContext, ctx) // for builtins that block in Go (model calls)
	defer func() {
		if p := recover(); p != nil {
			pos := callerPos(th, 0)
			d := contrib.Diag(contrib.HostPanic, inst.req.Plugin, pos,
				"%s: a host builtin panicked: %v", what, p)
			d.Detail = string(debug.Stack())
			err = &runFailure{diag: d, reason: inst.at("a host builtin panicked", pos)}
		}
	}()
	if err := fn(); err != nil {
		return inst.failure(err, st, what)
	}
	return nil
}

func cancelReason(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return "timed out"
	}
	return "cancelled"
}

// at appends " at file:line:col" to reason when pos is known, with the file
// relative to the plugin directory: a caller (a model) is told where in the
// plugin, not where on the host's disk.
func (inst *instance) at(reason string, pos contrib.Pos) string {
	if !pos.IsValid() {
		return reason
	}
	if root := inst.req.SourceRoot; root != "" {
		pos.File = strings.TrimPrefix(pos.File, root+"/")
	}
	return reason + " at " + pos.String()
}

// failure turns a Starlark error into a diagnostic at its innermost plugin
// frame, with the backtrace as detail.
func (inst *instance) failure(err error, st *runState, what string) error {
	var rf *runFailure
	if errors.As(err, &rf) {
		return rf
	}
	code := contrib.ExecutionFailed
	if what != "module" {
		code = contrib.CallbackFailed
	}
	msg := err.Error()
	var pos contrib.Pos
	var detail string
	// The deepest EvalError is the one that failed: a load() wraps the
	// loaded file's error in its own.
	var ee, next *starlark.EvalError
	for e := err; errors.As(e, &next); e = next.Unwrap() {
		ee = next
	}
	if ee != nil {
		msg = ee.Msg
		detail = ee.Backtrace()
		for i := len(ee.CallStack) - 1; i >= 0; i-- {
			if fr := ee.CallStack[i]; fr.Pos.Filename() != "<builtin>" {
				pos = posOf(fr.Pos)
				break
			}
		}
	}
	reason := "uncaught error" // its text goes only to diagnostics (DC6)
	cause := ""
	// The watchdog's cause counts only if the run did end by cancellation:
	// it may fire just after a run failed of something else.
	cancelled := strings.HasPrefix(msg, "Starlark computation cancelled: ")
	var bc *badCodeError
	switch {
	case cancelled && st.cause.Load() == causeMemory:
		code, reason, cause = contrib.ResourceExhausted, "memory_limit "+contrib.FormatByteSize(inst.memLimit)+" exceeded", contrib.CauseMemoryLimit
		msg = reason + ": the heap grew past the limit while plugin code ran; the run was cancelled"
	case cancelled && st.cause.Load() == causeCollateral:
		// Not this run's doing, as far as anything shows: say so, and
		// point the caller at no line of its code (issue 24, point 10).
		reason = "cancelled with other runs: the heap they share grew past memory_limit " +
			contrib.FormatByteSize(inst.memLimit) + " while another run was growing it"
		d := contrib.Diag(contrib.ResourceExhausted, inst.req.Plugin, pos, "%s: %s; this run was not seen growing it", what, reason)
		d.Detail = detail
		return &runFailure{diag: d, reason: reason, cause: contrib.CauseCollateral}
	case cancelled && st.cause.Load() == causeTimeout:
		code, reason, cause = contrib.CallbackTimeout, "callback_timeout "+inst.timeout.String()+" exceeded", contrib.CauseCallbackTimeout
		msg = reason + ": the run was cancelled"
	case st.stepsExceeded:
		code, cause = contrib.TooManySteps, contrib.CauseStepBudget
		reason = fmt.Sprintf("step budget of %d exhausted", inst.steps)
		msg = fmt.Sprintf("too many steps: the run exceeded its step_budget of %d steps and was cancelled; "+
			"raise step_budget in the home config.toml (globally or under [plugins.%q]) to allow more", inst.steps, inst.req.Plugin)
	case errors.As(err, new(*allocError)):
		code, reason, cause = contrib.ResourceExhausted, "memory_limit "+contrib.FormatByteSize(inst.memLimit)+" exceeded", contrib.CauseMemoryLimit
	case cancelled:
		reason = "cancelled"
	case errors.As(err, &bc):
		reason = fmt.Sprintf("error(%q, ...): the code %s", bc.code, bc.why)
	}
	d := contrib.Diag(code, inst.req.Plugin, pos, "%s: %s", what, strings.TrimPrefix(msg, "Starlark computation cancelled: "))
	d.Detail = detail
	return &runFailure{diag: d, reason: inst.at(reason, pos), cause: cause}
}

// failureReason is what a caller may be told about a failed run: its cause
// and position (`step budget of 10000000 exhausted at plugin.star:12:5`).
func failureReason(err error) string {
	var rf *runFailure
	if errors.As(err, &rf) && rf.reason != "" {
		return rf.reason
	}
	return "the tool failed"
}

// failureCause is the contrib.Cause* of a failed run, "" when the run
// failed of its own error.
func failureCause(err error) string {
	var rf *runFailure
	if errors.As(err, &rf) {
		return rf.cause
	}
	return ""
}

// callerPos returns the position of the Starlark frame depth levels above
// the builtin currently running (depth 0: the builtin's caller).
func callerPos(th *starlark.Thread, depth int) contrib.Pos {
	if th.CallStackDepth() <= depth+1 {
		if th.CallStackDepth() == 0 {
			return contrib.Pos{}
		}
		return posOf(th.CallFrame(0).Pos)
	}
	return posOf(th.CallFrame(depth + 1).Pos)
}

// call runs one callback in a fresh thread with its own step budget.
func (inst *instance) call(ctx context.Context, what string, fn starlark.Callable, args ...starlark.Value) (starlark.Value, error) {
	return inst.callNamed(ctx, inst.req.Plugin+":"+what, what, fn, args...)
}

// callNamed is call on a thread named thread (plugin:what), which a
// callback run again and again (a tool) names once.
func (inst *instance) callNamed(ctx context.Context, thread, what string, fn starlark.Callable, args ...starlark.Value) (starlark.Value, error) {
	th, st := inst.reuseThread(thread)
	var out starlark.Value
	err := inst.guarded(ctx, th, st, what, func() error {
		var err error
		out, err = starlark.Call(th, fn, args, nil)
		return err
	})
	if err == nil {
		inst.recycle(th)
	}
	if err != nil {
		var rf *runFailure
		if errors.As(err, &rf) && rf.diag.Code == contrib.HostPanic && inst.req.Fault != nil {
			inst.req.Fault(rf.diag)
		}
		return nil, err
	}
	return out, nil
}
