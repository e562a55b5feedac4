package builtins

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// StatusSink is a generation's handle for pushing status-line texts (CC17,
// CC18); statusline.Sink implements it. Safe from any goroutine.
type StatusSink interface {
	Set(name, text string)
	Clear(name string)
	Retire()
}

// UpdatingSink is implemented by a StatusSink that keeps a session's
// values apart and takes the note of its caller (statusline.Sink): Update
// sends a value set while a callback serves a session to that session's
// overlay (in; nil: the host-wide line), a blank text clears, and note
// receives the note of a name the plugin did not register (nil: the
// sink's own).
type UpdatingSink interface {
	Update(in StatusOverlay, name, text string, note func(msg string))
}

// StatusOverlay is a session's own status values (statusline.Overlay); a
// contrib.SessionScope that has one implements StatusScope.
type StatusOverlay = any

// StatusScope is implemented by a contrib.SessionScope with status values of its
// own.
type StatusScope interface {
	StatusOverlay() StatusOverlay
}

// SetStatus is one ctx.status.set (clear: ctx.status.clear) made under
// ctx, and the one place that decides which line it goes to, in process
// and in a worker alike (the host applies a worker's update under the
// context of the call it was made within): the line of the session ctx
// serves (contrib.SessionFrom, a StatusScope), when sink keeps sessions
// apart (UpdatingSink); else the host-wide line, as for attach and timers.
// note receives the note of a name the plugin did not register, with the
// call's place (nil: the sink's own).
func SetStatus(ctx context.Context, sink StatusSink, name, text string, clear bool, note func(msg string)) {
	us, ok := sink.(UpdatingSink)
	switch {
	case ok:
		var in StatusOverlay
		if sc, ok := contrib.SessionFrom(ctx).(StatusScope); ok {
			in = sc.StatusOverlay()
		}
		if clear {
			text = ""
		}
		us.Update(in, name, text, note)
	case clear:
		sink.Clear(name)
	default:
		sink.Set(name, text)
	}
}

// StatusSource is implemented by Services that keep a status line. It
// returns the sink of one generation, or nil when none of the plugin's
// fields was accepted (then attach_status is not called, CC17).
type StatusSource interface {
	StatusSink(plugin, generation string) StatusSink
}

func (inst *instance) statusSink() StatusSink {
	src, ok := inst.req.Services.(StatusSource)
	if !ok || inst.activating {
		return nil
	}
	return featureState(inst, "status", func() StatusSink { return src.StatusSink(inst.req.Plugin, inst.req.Generation) })
}

// statusCtx is ctx.status: the generation's sink, once attached.
func statusCtx(c *callCtx) starlark.Value {
	if sink := c.inst.statusSink(); sink != nil {
		return statusValue(c.inst, sink)
	}
	return nil
}

// prepareStatus runs attach_status only when the generation has a sink,
// which it receives after ctx.
func prepareStatus(inst *instance, _ *callCtx) ([]starlark.Value, bool) {
	sink := inst.statusSink()
	if sink == nil {
		return nil, false
	}
	return []starlark.Value{statusValue(inst, sink)}, true
}

// retireStatus is CC18: if attach_status fails, the sink is closed and every
// text it already published is removed.
func retireStatus(inst *instance) {
	if sink := inst.statusSink(); sink != nil {
		sink.Retire()
	}
}

// placedSink is a sink that sends each update on, with the call's place,
// to a host that applies it with SetStatus (a worker's sink): the host
// knows the fields, and which session the call it was made within serves.
type placedSink interface {
	SetAt(ctx context.Context, name, text string, pos contrib.Pos)
	ClearAt(ctx context.Context, name string, pos contrib.Pos)
}

// statusValue is the status object: set(name, text) and clear(name). A
// name the plugin did not register is noted at the call (StatusFieldUnknown).
func statusValue(inst *instance, sink StatusSink) starlark.Value {
	update := func(th *starlark.Thread, name, text string, clear bool) {
		ctx, pos := threadContext(th), callerPos(th, 0)
		placed, ok := sink.(placedSink)
		switch {
		case ok && clear:
			placed.ClearAt(ctx, name, pos)
		case ok:
			placed.SetAt(ctx, name, text, pos)
		default:
			SetStatus(ctx, sink, name, text, clear, func(msg string) {
				inst.note(contrib.Diag(contrib.StatusFieldUnknown, inst.req.Plugin, pos, "%s", msg))
			})
		}
	}
	return record("status", starlark.StringDict{
		"set": starlark.NewBuiltin("status.set", func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name, text string
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &name, &text); err != nil {
				return nil, err
			}
			update(th, name, text, false)
			return starlark.None, nil
		}),
		"clear": starlark.NewBuiltin("status.clear", func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &name); err != nil {
				return nil, err
			}
			update(th, name, "", true)
			return starlark.None, nil
		}),
	})
}

// MinTimerInterval is the shortest interval a plugin timer may have.
const MinTimerInterval = 100 * time.Millisecond

// timerSpec is one timer(every, run) entry.
type timerSpec struct {
	every time.Duration
	pos   contrib.Pos
}

func newTimer(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var every string
	var run starlark.Callable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "every", &every, "run", &run); err != nil {
		return nil, err
	}
	d, err := time.ParseDuration(every)
	if err != nil {
		return nil, fmt.Errorf("timer: every = %q is not a duration such as \"5s\" or \"500ms\"", every)
	}
	if d < MinTimerInterval {
		return nil, fmt.Errorf("timer: every = %q is shorter than the minimum %s", every, MinTimerInterval)
	}
	e := newEntry(th, "timer", every)
	e.fn = run
	e.extra = timerSpec{every: d, pos: e.pos}
	return e, nil
}

type timerEntry struct {
	spec timerSpec
	fn   starlark.Callable
}

func stageTimer(inst *instance, e *entry) {
	timers := featureState(inst, "timers", func() *[]timerEntry { return &[]timerEntry{} })
	*timers = append(*timers, timerEntry{spec: e.extra.(timerSpec), fn: e.fn})
}

var _ contrib.Starter = (*instance)(nil)

// Clock drives plugin timers. Every calls fn every d of the clock's time
// until stop is called; the calls of one timer never overlap. stop may be
// called more than once.
type Clock interface {
	Every(d time.Duration, fn func()) (stop func())
}

// clockSource is implemented by Services that drive plugin timers with a
// clock of their own, such as a test's manual clock. Without it, or when
// TimerClock returns nil, timers follow the real clock.
type clockSource interface {
	TimerClock() Clock
}

// realClock runs each timer on its own goroutine with a time.Ticker.
type realClock struct{}

func (realClock) Every(d time.Duration, fn func()) func() {
	done := make(chan struct{})
	var once sync.Once
	go func() {
		ticker := time.NewTicker(d)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				fn()
			}
		}
	}()
	return func() { once.Do(func() { close(done) }) }
}

func (inst *instance) clock() Clock {
	if src, ok := inst.req.Services.(clockSource); ok {
		if c := src.TimerClock(); c != nil {
			return c
		}
	}
	return realClock{}
}

// TimerFaultThreshold is how many runs in a row a timer may fail before its
// plugin is faulted (BackgroundWorkFailed, DC24: failed registered
// background work faults the plugin). Each failed run is a CallbackFailed
// note; a run that succeeds starts the count again, so a timer that fails
// now and then only warns, while one that fails on every tick is stopped
// within five ticks instead of warning forever.
const TimerFaultThreshold = 5

// Start runs the generation's timers (plugin-owned; the host runs no status
// timer of its own, CC18) on the services' clock. Each run goes through the
// generation's gate, with its own step budget; a failing run is noted and
// the timer goes on, until TimerFaultThreshold runs in a row failed: then
// the plugin is faulted. Timers stop when the generation is revoked or
// closed. Start runs once.
func (inst *instance) Start(gate *contrib.Gate) {
	timers := featureState(inst, "timers", func() *[]timerEntry { return &[]timerEntry{} })
	started := featureState(inst, "timers.started", func() *bool { return new(bool) })
	inst.mu.Lock()
	if *started || len(*timers) == 0 {
		inst.mu.Unlock()
		return
	}
	*started = true
	inst.mu.Unlock()
	clock := inst.clock()
	for _, t := range *timers {
		// Runs of one timer never overlap (Clock), so these need no lock.
		// Once faulted, the timer runs no more; the fault revokes the
		// generation, whose gate then stops it.
		failed, faulted := 0, false
		stop := clock.Every(t.spec.every, func() {
			if !faulted {
				faulted = inst.runTimer(t, gate, &failed)
			}
		})
		inst.onClose(stop)
		context.AfterFunc(gate.Context(), stop) // revoked: no run is admitted any more
	}
}

// runTimer runs one tick of a timer through the gate and counts the runs
// that failed in a row in *failed. It reports whether the timer must stop:
// TimerFaultThreshold runs in a row failed and the plugin was faulted. A
// run cancelled because its generation is retiring counts for nothing.
func (inst *instance) runTimer(t timerEntry, gate *contrib.Gate, failed *int) (stop bool) {
	what := "timer every " + t.spec.every.String()
	gate.Do(gate.Context(), func(ctx context.Context) {
		_, err := inst.call(ctx, what, t.fn, inst.newCtx(ctx, ctxAttach))
		switch {
		case err == nil:
			*failed = 0
			return
		case ctx.Err() != nil:
			inst.note(failureDiag(err))
			return
		}
		last := failureDiag(err)
		inst.note(last)
		if *failed++; *failed < TimerFaultThreshold || inst.req.Fault == nil {
			return
		}
		stop = true
		inst.req.Fault(contrib.Diag(contrib.BackgroundWorkFailed, inst.req.Plugin, t.spec.pos,
			"%s failed %d times in a row; the plugin is faulted and its timers stop: %s", what, *failed,
			strings.TrimPrefix(last.Message, what+": ")).
			WithRemedy("fix the error at the top of the backtrace, then save the file again, reload the plugin, or disable and enable it"))
	})
	return stop
}
