package worker

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
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
