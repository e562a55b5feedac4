package starhost

import (
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
	lworker "github.com/crystal-star/crystal-star/lifecycle/worker"
	"github.com/crystal-star/crystal-star/starhost/internal/sandbox"
)

// starhost/check reaches the host's internals through this seam only
// (starhost/internal/sandbox): the root does not import its tools.
var _ = sandbox.Register(sandbox.Seam{
	Of: func(h any) sandbox.Host { return checkSandbox{h.(*Host)} },
	Errorf: func(code error, format string, args ...any) error {
		return codeErrorf(code.(Code), format, args...)
	},
})

// checkSandbox is an unstarted host as starhost/check sees it.
type checkSandbox struct{ h *Host }

func (s checkSandbox) Roots() []lifecycle.Root { return s.h.roots() }
func (s checkSandbox) HostVersion() string     { return s.h.opts.HostVersion }
func (s checkSandbox) Admit(c *lifecycle.Candidate, fp func() string) []lifecycle.Blocker {
	return s.h.admit(c, fp)
}
func (s checkSandbox) AdmitStatusFields(plugin string, set *contrib.Set) []contrib.Diagnostic {
	return s.h.admitStatusFields(plugin, set)
}
func (s checkSandbox) MemoryLimit() int64 { mem, _ := s.h.limits(); return mem }
func (s checkSandbox) Workers(timeout time.Duration) *lworker.Activator {
	return s.h.workers(timeout)
}
