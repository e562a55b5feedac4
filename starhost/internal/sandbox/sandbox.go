// Package sandbox is the seam between the host (package starhost) and its
// check tool (starhost/check): what a check needs of a host that is never
// started — its plugin roots, its trust verdicts, its status-field rules
// and its worker processes — without starhost exporting any of it to
// embedders, and without starhost importing its tools.
//
// starhost registers its side when the package is initialised (one call
// of Register, from a variable's initialiser in starhost/check_seam.go);
// starhost/check imports starhost, so the registration has always
// happened before Of is called.
package sandbox

import (
	"time"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/lifecycle"
	lworker "github.com/crystal-star/crystal-star/lifecycle/worker"
)

// Host is an unstarted *starhost.Host as a check sees it.
type Host interface {
	// Roots lists the plugin roots by priority, as the host would discover
	// them (none when config.toml turns plugins off).
	Roots() []lifecycle.Root
	// HostVersion is the version plugins' min_host_version is held against.
	HostVersion() string
	// Admit is the host's trust seam: the blockers of candidate c with
	// fingerprint fp, computed only when the decision needs it (none for a
	// dev plugin or a granted one).
	Admit(c *lifecycle.Candidate, fp func() string) []lifecycle.Blocker
	// AdmitStatusFields declares the status fields of set on the host's
	// board and returns the diagnostics of those it leaves out.
	AdmitStatusFields(plugin string, set *contrib.Set) []contrib.Diagnostic
	// MemoryLimit is the worker memory limit (config.toml over Options
	// over the default).
	MemoryLimit() int64
	// Workers returns a process activator with the host's limits and the
	// given bound on each callback.
	Workers(timeout time.Duration) *lworker.Activator
}

// Seam is what starhost registers.
type Seam struct {
	// Of returns the check's view of h, a *starhost.Host.
	Of func(h any) Host
	// Errorf builds an error of starhost's shape, `what happened [code]`,
	// wrapping code (a starhost.Code) and the %w arguments.
	Errorf func(code error, format string, args ...any) error
}

var seam Seam

// Register records starhost's side of the seam. It returns true so that
// it can initialise a package variable.
func Register(s Seam) bool {
	seam = s
	return true
}

// Of returns the check's view of h, a *starhost.Host.
func Of(h any) Host { return seam.Of(h) }

// Errorf builds an error of starhost's shape wrapping code.
func Errorf(code error, format string, args ...any) error { return seam.Errorf(code, format, args...) }
