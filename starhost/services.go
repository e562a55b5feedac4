// The host's services as builtins sees them: the plumbing plugins' ctx
// objects call back into. It lives on an unexported type so that Host's
// exported surface is only what an embedder calls. This file holds the
// session, model, clock and environment services; services_host.go the
// others.

package starhost

import (
	"context"

	"github.com/crystal-star/crystal-star/builtins"
	"github.com/crystal-star/crystal-star/contrib"
)

// services is the contrib.Services the host hands the lifecycle (and so
// builtins and the worker protocol).
type services struct{ h *Host }

var (
	_ contrib.Services           = services{}
	_ builtins.SessionSource     = services{}
	_ builtins.ModelSource       = services{}
	_ builtins.EnvironmentSource = services{}
)

// Facts implements contrib.Services: the facts on every callback's ctx.
func (s services) Facts() contrib.Facts { return internalHostFacts(s.h.Session().Facts()) }

// Session implements builtins.SessionSource: ctx.session.
func (s services) Session() *builtins.ModelFacts {
	if f := s.h.models.session.Load(); f != nil {
		c := internalFacts(*f)
		return &c
	}
	return nil
}

// Review implements builtins.SessionSource: ctx.review.
func (s services) Review() *builtins.ReviewFacts {
	if r := s.h.models.review.Load(); r != nil {
		c := internalReview(*r)
		return &c
	}
	return nil
}

// ModelEpoch implements builtins.ModelSource: session and images share the
// session client's epoch, review has its own.
func (s services) ModelEpoch(role contrib.ModelRole) uint64 {
	if ModelRole(role) == RoleReview {
		return s.h.models.reviewEpoch.Load()
	}
	return s.h.models.sessionEpoch.Load()
}

// ModelClient implements builtins.ModelSource: a fresh client of role for
// plugin (ctx.models, CC25).
func (s services) ModelClient(ctx context.Context, plugin string, role contrib.ModelRole) (contrib.ModelClient, error) {
	return s.h.modelClient(ctx, plugin, ModelRole(role))
}

// TimerClock implements builtins.ClockSource: Options.Clock, nil for the
// real clock.
func (s services) TimerClock() builtins.Clock { return s.h.opts.Clock }

// Environment implements builtins.EnvironmentSource: ctx.env (CC19).
func (s services) Environment() *builtins.Environment { return s.h.environment() }
