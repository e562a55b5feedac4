package starhost

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/crystal-star/crystal-star/contrib"
)

// Limits are the resource limits of plugin runs (docs/isolation.md).
type Limits struct {
	// MemoryLimit is the in-process heap budget in bytes: how far the Go
	// heap may grow over the host's live heap while plugin code runs
	// before every running Starlark thread is cancelled with
	// ResourceExhausted; a single repeat larger than it is refused before
	// allocating.
	MemoryLimit int64
	// CallbackTimeout bounds one run (the module's top level or one
	// callback); it is cancelled at its next step with CallbackTimeout.
	CallbackTimeout time.Duration
	// StepBudget is the step budget of each run of a plugin without a
	// [plugins."id"] step_budget of its own (Config.PluginStepBudget); a
	// run past it is cancelled with TooManySteps.
	StepBudget uint64
	// AskTimeout bounds how long one ctx.ask waits for the person; the
	// wait counts against neither StepBudget nor CallbackTimeout.
	AskTimeout time.Duration
}

// baseLimits are the limits before config.toml: the embedder's Options,
// else the defaults.
func (h *Host) baseLimits() Limits {
	l := Limits{MemoryLimit: h.opts.MemoryLimit, CallbackTimeout: h.opts.CallbackTimeout, StepBudget: h.opts.Steps,
		AskTimeout: h.opts.askTimeout()}
	if l.StepBudget == 0 {
		l.StepBudget = DefaultStepBudget
	}
	if l.MemoryLimit == 0 {
		l.MemoryLimit = DefaultMemoryLimit
	}
	if l.CallbackTimeout == 0 {
		l.CallbackTimeout = DefaultCallbackTimeout
	}
	return l
}

// mergeLimits applies one layer's memory_limit, callback_timeout,
// ask_timeout and step_budget (mergeStepBudget). A value
// that does not parse is a diagnostic and is ignored. The workspace layer
// comes from the repository being worked on, so it may tighten a limit but
// never loosen one.
func mergeLimits(dst *Config, l *layer, workspace bool, note func(contrib.Diagnostic)) {
	bad := func(key, format string, args ...any) {
		note(contrib.Diag(contrib.ConfigValueInvalid, "", l.pos(key), "%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if l.md.IsDefined("memory_limit") {
		n, err := contrib.ParseByteSize(l.cfg.MemoryLimit)
		switch {
		case err != nil:
			bad("memory_limit", "%v; %s stays in effect", err, contrib.FormatByteSize(dst.Limits.MemoryLimit))
		case workspace && n > dst.Limits.MemoryLimit:
			bad("memory_limit", "a workspace config may lower the limit, not raise it; %s stays in effect", contrib.FormatByteSize(dst.Limits.MemoryLimit))
		default:
			dst.MemoryLimit, dst.Limits.MemoryLimit = l.cfg.MemoryLimit, n
		}
	}
	// duration reads a timeout key: a positive duration, which a
	// workspace may only lower.
	duration := func(key, raw, example string, inEffect time.Duration) (time.Duration, bool) {
		d, err := time.ParseDuration(raw)
		switch {
		case err != nil || d <= 0:
			bad(key, "%q is not a positive duration such as %s; %s stays in effect", raw, example, inEffect)
		case workspace && d > inEffect:
			bad(key, "a workspace config may lower the limit, not raise it; %s stays in effect", inEffect)
		default:
			return d, true
		}
		return 0, false
	}
	if l.md.IsDefined("callback_timeout") {
		if d, ok := duration("callback_timeout", l.cfg.CallbackTimeout, `"30s" or "2m"`, dst.Limits.CallbackTimeout); ok {
			dst.CallbackTimeout, dst.Limits.CallbackTimeout = l.cfg.CallbackTimeout, d
		}
	}
	if l.md.IsDefined("ask_timeout") {
		if d, ok := duration("ask_timeout", l.cfg.AskTimeout, `"5m"`, dst.Limits.AskTimeout); ok {
			dst.AskTimeout, dst.Limits.AskTimeout = l.cfg.AskTimeout, d
		}
	}
	mergeStepBudget(dst, l, workspace, bad)
}

// mergeStepBudget applies one layer's step_budget, global and per plugin.
// A workspace may only lower a budget: its global step_budget is a cap,
// lowering the global budget and every plugin's to at most its value
// (effective = min(home budget, cap) per plugin), and is refused with a
// warning only when it would lower none of them; its [plugins."id"]
// step_budget may not exceed the plugin's budget in effect. A value that
// is not positive is refused and changes nothing.
func mergeStepBudget(dst *Config, l *layer, workspace bool, bad func(key, format string, args ...any)) {
	if l.md.IsDefined("step_budget") {
		n := l.cfg.StepBudget
		highest := dst.Limits.StepBudget
		for _, cur := range dst.PluginStepBudget {
			highest = max(highest, cur)
		}
		switch {
		case n <= 0:
			bad("step_budget", "%d is not a positive number of steps; the value is ignored", n)
		case !workspace:
			dst.StepBudget, dst.Limits.StepBudget = n, uint64(n)
		case uint64(n) > highest:
			also := ""
			if len(dst.PluginStepBudget) > 0 {
				also = ", and each plugin's own step_budget"
			}
			bad("step_budget", "a workspace config may lower the budget, not raise it; %d stays in effect%s", dst.Limits.StepBudget, also)
		default:
			if uint64(n) < dst.Limits.StepBudget {
				dst.StepBudget, dst.Limits.StepBudget = n, uint64(n)
			}
			for id, cur := range dst.PluginStepBudget {
				dst.PluginStepBudget[id] = min(cur, uint64(n))
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(l.file.Plugins.Settings)) {
		s := l.file.Plugins.Settings[id]
		if !s.StepBudgetSet {
			continue
		}
		key := fmt.Sprintf("plugins.%q.step_budget", id)
		cur := dst.stepBudget(id)
		switch {
		case s.StepBudget <= 0:
			bad(key, "%d is not a positive number of steps; the value is ignored", s.StepBudget)
		case workspace && uint64(s.StepBudget) > cur:
			bad(key, "a workspace config may lower the budget, not raise it; %d stays in effect", cur)
		default:
			if dst.PluginStepBudget == nil {
				dst.PluginStepBudget = map[string]uint64{}
			}
			dst.PluginStepBudget[id] = uint64(s.StepBudget)
		}
	}
}

// stepBudget is the step budget in effect for plugin id.
func (c *Config) stepBudget(id string) uint64 {
	if n, ok := c.PluginStepBudget[id]; ok {
		return n
	}
	return c.Limits.StepBudget
}

// stepBudget returns the step budget of each run of plugin id as
// configured now: its [plugins."id"] step_budget, else the global
// step_budget, else Options.Steps, else builtins.DefaultStepBudget. A
// generation runs under the value in effect at its activation.
func (h *Host) stepBudget(id string) uint64 {
	c := h.Config()
	return c.stepBudget(id)
}
