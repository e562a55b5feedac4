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
// Where no session is served (attach, timers) callbacks see the host's
// defaults; a call serving a session carries it on its context
// (contrib.SessionScope, sessions.go), which builtins asks first.
func (s services) Facts() contrib.Facts { return s.h.base.scope.Facts() }

// Session implements builtins.SessionSource: ctx.session.
func (s services) Session() *builtins.ModelFacts { return s.h.base.scope.Session() }

// Review implements builtins.SessionSource: ctx.review.
func (s services) Review() *builtins.ReviewFacts { return s.h.base.scope.Review() }

// ModelEpoch implements builtins.ModelSource: session and images share the
// session client's epoch, review has its own.
func (s services) ModelEpoch(role contrib.ModelRole) uint64 { return s.h.base.scope.ModelEpoch(role) }

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
