package contrib

import (
	"context"
	"errors"
	"fmt"
)

// Resolution is the resolved list of one point for one thread, frozen when
// it was resolved (DC12). Its runners apply the point's failure policy
// (DC3). Safe for concurrent use.
type Resolution struct {
	Point   *Point
	Thread  string
	Entries []Resolved
	// Notes receives each skipped entry; Registry.Resolve sets it to the
	// registry's notes. Replace it to collect the notes of one run.
	Notes func(Diagnostic)
}

// Output is one entry's answer.
type Output struct {
	Entry *Resolved
	Value any
}

// Check converts an entry's answer into what its consumer keeps, or
// rejects it; a rejected answer counts as a failure of that entry. in is the
// entry's input. A nil Check keeps the answer as it is.
type Check func(in, out any) (any, error)

// ErrPointFailed is the stable code of an authoritative point whose entry
// raised an error (DC3); the full text goes to the diagnostics.
const ErrPointFailed = "point_failed"

// PointError is the failure of an operation whose authoritative entry
// failed (DC3). Code is the entry's own code when it returned
// error(code, message), else ErrPointFailed.
type PointError struct {
	Point   PointName
	Plugin  string
	Code    string
	Message string
}

func (e *PointError) Error() string {
	return fmt.Sprintf("%s: %s: %s [%s]", e.Point, e.Plugin, e.Message, e.Code)
}

// errRevoked is an entry whose generation stopped admitting calls after
// the list was resolved: it is left out without a note.
var errRevoked = errors.New("revoked")

// Collect runs every entry on in, in order, and returns the answers that
// are not None (Combine Collect; observers ignore them).
func (r *Resolution) Collect(ctx context.Context, in any, check Check) ([]Output, error) {
	var outs []Output
	for i := range r.Entries {
		v, ok, err := r.ask(ctx, &r.Entries[i], in, check)
		if err != nil {
			return outs, err
		}
		if ok {
			outs = append(outs, Output{Entry: &r.Entries[i], Value: v})
		}
	}
	return outs, nil
}

// First asks the entries in order and returns the first answer that is not
// None (Combine First). ok is false when every entry passed.
func (r *Resolution) First(ctx context.Context, in any, check Check) (out Output, ok bool, err error) {
	for i := range r.Entries {
		v, ok, err := r.ask(ctx, &r.Entries[i], in, check)
		if err != nil || ok {
			return Output{Entry: &r.Entries[i], Value: v}, ok, err
		}
	}
	return Output{}, false, nil
}

// Fold runs the entries in order, each on the previous one's result
// (Combine Fold): check turns an entry's answer into the next input; None
// leaves it unchanged.
func (r *Resolution) Fold(ctx context.Context, in any, check Check) (any, error) {
	for i := range r.Entries {
		v, ok, err := r.ask(ctx, &r.Entries[i], in, check)
		if err != nil {
			return in, err
		}
		if ok {
			in = v
		}
	}
	return in, nil
}

// Last runs only the last entry of the list: a takeover has the final say
// (DC10). ok is false when the list is empty or the entry passed or was
// skipped.
func (r *Resolution) Last(ctx context.Context, in any, check Check) (Output, bool, error) {
	if len(r.Entries) == 0 {
		return Output{}, false, nil
	}
	e := &r.Entries[len(r.Entries)-1]
	v, ok, err := r.ask(ctx, e, in, check)
	return Output{Entry: e, Value: v}, ok, err
}

// Idle reports whether running r would run nothing: every entry is a named
// target for which the host gave no default. Callers skip building the
// input then.
func (r *Resolution) Idle() bool {
	for i := range r.Entries {
		if e := &r.Entries[i]; e.run != nil || e.fallback != nil {
			return false
		}
	}
	return true
}

// ask runs one entry and applies the failure policy: ok is false when the
// entry passed (None) or was skipped; err is set only when an
// authoritative entry failed.
func (r *Resolution) ask(ctx context.Context, e *Resolved, in any, check Check) (any, bool, error) {
	out, err := r.run(ctx, e, in)
	if err == nil && out != nil && check != nil {
		out, err = check(in, out)
	}
	switch {
	case errors.Is(err, errRevoked):
		return nil, false, nil
	case err != nil:
		return nil, false, r.failed(e, err)
	}
	return out, out != nil, nil
}

// run calls e, falling back to the default when a replacement of a
// give-up target (memory) answers None (DC9).
func (r *Resolution) run(ctx context.Context, e *Resolved, in any) (any, error) {
	call := PointCall{Point: r.Point.Name, Thread: r.Thread, Input: in}
	out, err := callEntry(ctx, e.gate, e.run, call)
	if err == nil && out == nil && e.fallback != nil {
		return callEntry(ctx, nil, e.fallback, call)
	}
	return out, err
}

func callEntry(ctx context.Context, gate *Gate, fn PointFunc, call PointCall) (out any, err error) {
	if fn == nil {
		return nil, nil
	}
	ran := admit(ctx, gate, func(ctx context.Context) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		out, err = fn(ctx, call)
	})
	if !ran {
		return nil, errRevoked
	}
	return out, err
}

// failed applies the point's failure policy to e's error: an authoritative
// point fails the operation; the others note and skip the entry (DC3).
func (r *Resolution) failed(e *Resolved, err error) error {
	origin := e.Origin
	if origin == "" {
		origin = "the host"
	}
	d := entryFailure(err, e.Origin, e.Pos, string(r.Point.Name))
	if r.Point.Failure == authoritative {
		pe := &PointError{Point: r.Point.Name, Plugin: origin, Code: ErrPointFailed,
			Message: fmt.Sprintf("the %s entry of %s failed", r.Point.Name, origin)}
		if te := (*ToolError)(nil); errors.As(err, &te) {
			pe.Code, pe.Message = te.Code, te.Message
		}
		r.note(Diag(PointOperationFailed, e.Origin, d.Pos, "%s; the operation failed", d.Message).withDetail(d.Detail))
		return pe
	}
	how := "the other entries still ran"
	if r.Point.Failure == orderedFold {
		how = "its input passed on to the next entry"
	}
	r.note(Diag(PointEntrySkipped, e.Origin, d.Pos, "%s; the entry was skipped (%s)", d.Message, how).withDetail(d.Detail))
	return nil
}

func (r *Resolution) note(d Diagnostic) {
	if r.Notes != nil {
		r.Notes(d)
	}
}
