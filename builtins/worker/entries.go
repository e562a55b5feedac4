package worker

import (
	"context"
	"errors"
	"fmt"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// Entries added at run time (ctx.contributions, DC11): the function stays
// in the worker under a number; the host's registry holds an entry whose
// Run calls the worker with that number.

var _ builtins.PointRegistrar = (*remoteServices)(nil)

func (s *remoteServices) AddEntry(plugin, _ string, e contrib.PointEntry) (*contrib.Handle, error) {
	s.mu.Lock()
	if s.entries == nil {
		s.entries, s.byID = map[int]contrib.PointFunc{}, map[string]int{}
	}
	s.next++
	n := s.next
	s.entries[n] = e.Run
	s.mu.Unlock()
	var h wire.EntryHandle
	re := wire.RuntimeEntry{Index: n, Entry: e}
	if err := s.conn.Call(context.Background(), wire.MethodAddEntry, re, &h); err != nil {
		s.forget(n, "")
		return nil, remoteErr(err)
	}
	s.mu.Lock()
	s.byID[h.ID] = n
	s.mu.Unlock()
	return contrib.NewRemoteHandle(h.ID, h.Point, h.Scope, h.Thread, func() bool { return s.ReleaseEntry(plugin, h.ID) }), nil
}

func (s *remoteServices) ReleaseEntry(_, id string) bool {
	var ok bool
	s.call(wire.MethodReleaseEntry, id, &ok)
	s.mu.Lock()
	n, known := s.byID[id]
	s.mu.Unlock()
	if known {
		s.forget(n, id)
	}
	return ok
}

func (s *remoteServices) forget(n int, id string) {
	s.mu.Lock()
	delete(s.entries, n)
	delete(s.byID, id)
	s.mu.Unlock()
}

// runEntry runs entry n for the host.
func (s *remoteServices) runEntry(ctx context.Context, n int, call contrib.PointCall) (any, error) {
	s.mu.Lock()
	run := s.entries[n]
	s.mu.Unlock()
	if run == nil {
		return nil, fmt.Errorf("no runtime entry %d", n)
	}
	return run(ctx, call)
}

// addEntry registers, in the host's registry, an entry the worker added.
func (h *HostSide) addEntry(re wire.RuntimeEntry) (wire.EntryHandle, error) {
	reg, ok := h.req.Services.(builtins.PointRegistrar)
	if !ok {
		return wire.EntryHandle{}, errors.New("this host accepts no entries at run time")
	}
	e := re.Entry
	e.Run = func(ctx context.Context, call contrib.PointCall) (any, error) {
		var out wire.Outcome
		in := wire.Invoke{Index: re.Index, Call: &call, Facts: h.facts(ctx)}
		if err := h.call(ctx, string(call.Point)+" entry", wire.MethodRuntimeEntry, in, &out); err != nil {
			return nil, err
		}
		return out.Result(func(p *wire.Provided) []contrib.Tool {
			return p.HostTools(h.req.Plugin, h.req.Rules, h.call, h.facts)
		})
	}
	handle, err := reg.AddEntry(h.req.Plugin, h.req.Generation, e)
	if err != nil {
		return wire.EntryHandle{}, err
	}
	return wire.EntryHandle{ID: handle.ID, Point: handle.Point, Scope: handle.Scope, Thread: handle.Thread}, nil
}

// facts are the facts of the session a call under ctx serves, else the
// host's.
func (h *HostSide) facts(ctx context.Context) contrib.Facts {
	return contrib.FactsFor(ctx, h.req.Services)
}
