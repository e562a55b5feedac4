package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
)

// Resolution is a point's resolved list for one thread, frozen when it was
// resolved (DC12): an operation that holds it finishes with these entries.
// Run it with Collect, First, Fold or Last, which apply the point's
// failure policy (DC3); an authoritative entry's failure is their error,
// wrapping ErrPointFailed.
// Their check converts an entry's answer into what the caller keeps, or
// rejects it (an error), which counts as a failure of that entry; in is
// the entry's input, and a nil check keeps answers as they are. It is safe
// for concurrent use.
type Resolution struct {
	Point   PointName
	Thread  string
	Entries []PointEntry
	r       *contrib.Resolution
	session *Session // the session its runs serve (Thread.Resolve)
}

// serve binds the resolution's session to ctx, unless ctx serves one.
func (r *Resolution) serve(ctx context.Context) context.Context {
	if r.session != nil && contrib.SessionFrom(ctx) == nil {
		return r.session.bind(ctx)
	}
	return ctx
}

// PointOutput is one entry's answer: the entry and the JSON-like value it
// returned.
type PointOutput struct {
	Entry PointEntry
	Value any
}

// The runs of a Resolution serve the session of the thread that resolved
// it: its callbacks see that session's facts.

// Collect runs every entry in order with in and returns the answers of
// those that answered (None is no answer).
func (r *Resolution) Collect(ctx context.Context, in any, check func(in, out any) (any, error)) ([]PointOutput, error) {
	outs, err := r.r.Collect(r.serve(ctx), in, checkOf(check))
	return sandbox.ConvertAll(outs, r.output), pointError(err)
}

// First runs the entries in order until one answers, and returns that
// answer; ok is false when none did.
func (r *Resolution) First(ctx context.Context, in any, check func(in, out any) (any, error)) (out PointOutput, ok bool, err error) {
	o, ok, err := r.r.First(r.serve(ctx), in, checkOf(check))
	return r.output(o), ok, pointError(err)
}

// Fold runs the entries in order, each on the previous answer (in for the
// first), and returns the last value; an entry answering None leaves it.
func (r *Resolution) Fold(ctx context.Context, in any, check func(in, out any) (any, error)) (any, error) {
	out, err := r.r.Fold(r.serve(ctx), in, checkOf(check))
	return out, pointError(err)
}

// Last runs only the last entry (the one that takes over) and returns its
// answer; ok is false when there is none or it answered None.
func (r *Resolution) Last(ctx context.Context, in any, check func(in, out any) (any, error)) (PointOutput, bool, error) {
	o, ok, err := r.r.Last(r.serve(ctx), in, checkOf(check))
	return r.output(o), ok, pointError(err)
}

// resolutionOf is the embedder's view of a registry resolution.
func resolutionOf(r *contrib.Resolution, s *Session) *Resolution {
	return &Resolution{Point: PointName(r.Point.Name), Thread: r.Thread, Entries: entriesOf(r.Entries), r: r, session: s}
}

// output converts an answer; its entry is found by identity in r.
func (r *Resolution) output(o contrib.Output) PointOutput {
	out := PointOutput{Value: o.Value}
	for i := range r.r.Entries {
		if &r.r.Entries[i] == o.Entry {
			out.Entry = r.Entries[i]
		}
	}
	return out
}

func checkOf(check func(in, out any) (any, error)) contrib.Check {
	if check == nil {
		return nil
	}
	return check
}
