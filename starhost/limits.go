package starhost

import (
	"fmt"
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
}

// baseLimits are the limits before config.toml: the embedder's Options,
// else the defaults.
func (h *Host) baseLimits() Limits {
	l := Limits{MemoryLimit: h.opts.MemoryLimit, CallbackTimeout: h.opts.CallbackTimeout}
	if l.MemoryLimit == 0 {
		l.MemoryLimit = DefaultMemoryLimit
	}
	if l.CallbackTimeout == 0 {
		l.CallbackTimeout = DefaultCallbackTimeout
	}
	return l
}

// mergeLimits applies one layer's memory_limit and callback_timeout. A value
// that does not parse is a diagnostic and is ignored. The workspace layer
// comes from the repository being worked on, so it may tighten a limit but
// never loosen one.
func mergeLimits(dst *Config, l *layer, workspace bool, note func(contrib.Diagnostic)) {
	bad := func(key, format string, args ...any) {
		note(contrib.Diag(contrib.ConfigValueInvalid, "", contrib.Pos{File: l.path}, "%s: %s", key, fmt.Sprintf(format, args...)))
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
	if l.md.IsDefined("callback_timeout") {
		d, err := time.ParseDuration(l.cfg.CallbackTimeout)
		switch {
		case err != nil || d <= 0:
			bad("callback_timeout", "%q is not a positive duration such as \"30s\" or \"2m\"; %s stays in effect", l.cfg.CallbackTimeout, dst.Limits.CallbackTimeout)
		case workspace && d > dst.Limits.CallbackTimeout:
			bad("callback_timeout", "a workspace config may lower the limit, not raise it; %s stays in effect", dst.Limits.CallbackTimeout)
		default:
			dst.CallbackTimeout, dst.Limits.CallbackTimeout = l.cfg.CallbackTimeout, d
		}
	}
}
