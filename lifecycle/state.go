package lifecycle

import (
	"github.com/crystal-star/crystal-star/contrib"
)

// State is a plugin's lifecycle state (DC24).
type State string

// The states. Only these transitions happen:
//
//	blocked <-> stopped -> activating -> active -> deactivating -> reclaiming -> stopped
//	                           |                        |
//	                           v                        v (teardown pending past the timeout)
//	                        faulted                deactivating
const (
	Stopped      State = "stopped"
	Blocked      State = "blocked"
	activating   State = "activating"
	Active       State = "active"
	Deactivating State = "deactivating"
	Faulted      State = "faulted"
	Reclaiming   State = "reclaiming"
)

// Blocker is one reason a plugin was not attempted, with the next step.
// Action names the operator operation that clears it, when one does, so a
// front end offers its own command for it without reading the remedy.
type Blocker struct {
	Code    contrib.Code `json:"code"`
	Message string       `json:"message"`
	Remedy  string       `json:"remedy"`
	Action  string       `json:"action,omitempty"`
}

// The operations a Blocker's Action names.
const (
	ActionGrant  = "grant"  // trust the plugin's current content
	ActionEnable = "enable" // take it off the configuration's disabled list
)

// Projection is the read-only view of one plugin that the host and the CLI
// show. Fingerprint is empty until the bundle has been read.
type Projection struct {
	ID          string         `json:"id"`
	Directory   string         `json:"directory"`
	Source      contrib.Source `json:"source"`
	DisplayName string         `json:"display_name"`
	Version     string         `json:"version"`
	Enabled     *bool          `json:"enabled"`
	State       State          `json:"state"`
	Generation  string         `json:"generation"`
	Fingerprint string         `json:"fingerprint"`
	// Trust is filled by the host: "dev" (eligible in-process), "trusted",
	// "untrusted", "modified", "unreadable" (the trust file), or "" before
	// the bundle was read.
	Trust    string    `json:"trust"`
	Blockers []Blocker `json:"blockers"`
	// StopReason says why a stopped plugin does not run when the operator
	// switched it off (PluginDisabled, MC5); nil otherwise. A disabled
	// plugin is stopped, never blocked: blockers are what prevents a plugin
	// the operator wants running.
	StopReason  *Blocker             `json:"stop_reason,omitempty"`
	Diagnostics []contrib.Diagnostic `json:"diagnostics"`
	// TeardownPending is set while a deactivated generation still has work
	// that ignored cancellation (DC26).
	TeardownPending bool `json:"teardown_pending,omitempty"`
	// LeakedGenerations counts this plugin's deactivated generations still
	// pinned in memory, and RestartRecommended is the host-wide verdict of
	// Stats (DC27, MC9). The host fills both; the manager leaves them zero.
	LeakedGenerations  int  `json:"leaked_generations"`
	RestartRecommended bool `json:"restart_recommended"`
}

// Stats are host-wide lifecycle figures (DC27).
type Stats struct {
	// Reclaiming counts deactivated generations not yet released by the
	// garbage collector.
	Reclaiming int `json:"reclaiming"`
	// LeakedGenerations counts deactivated generations still pinned after
	// at least two garbage collections since their teardown finished.
	LeakedGenerations  int  `json:"leaked_generations"`
	RestartRecommended bool `json:"restart_recommended"`
}
