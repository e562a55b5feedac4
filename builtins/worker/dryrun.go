package worker

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"runtime/debug"
	"slices"

	"github.com/crystal-star/crystal-star/contrib/wire"
)

// dryRun serves wire.MethodDryRun: it activates the bundle, with its
// dependencies before it, describes what it staged and closes everything
// again, so the worker keeps no generation and can serve the next dry run.
// `crystal-star check` sends every plugin of a run to one worker this way
// instead of starting a process per plugin.
func (s *server) dryRun(ctx context.Context, body []byte) (any, error) {
	var b wire.Bundle
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inst != nil {
		return nil, errors.New("the worker serves a generation: no dry run here")
	}
	s.activator(b.Steps)
	if !s.checking {
		// A worker that serves dry runs lives for one check (or one
		// editor session) and allocates a little for each of many
		// plugins: collecting at 5× the live heap instead of 2× halves
		// the collector's share of its CPU, and SetMemoryLimit (Main)
		// still makes it collect as hard as needed near memory_limit.
		debug.SetGCPercent(dryRunGCPercent)
		s.checking = true
	}
	s.svc.facts.Store(&b.Facts)
	exports, opened, err := s.activateDeps(ctx, b.Deps)
	defer func() {
		for _, inst := range opened {
			inst.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	req := s.request(&b, &memFS{files: b.Files}, exports)
	req.Fault = nil // a dry run has no generation to fault: its failure is its answer
	inst, err := s.act.Activate(ctx, req)
	if err != nil {
		return activated(err), nil
	}
	opened = append(opened, inst)
	a := describe(inst.Set())
	a.Exports = slices.Sorted(maps.Keys(inst.Exports()))
	return a, nil
}

// dryRunGCPercent is the collector's target of a worker serving dry runs.
const dryRunGCPercent = 400
