package starhost

import "time"

// State is a plugin's lifecycle state (DC24). Only these transitions
// happen: blocked <-> stopped -> activating -> active -> deactivating ->
// reclaiming -> stopped, and activating -> faulted; a generation whose work
// ignores cancellation stays deactivating (TeardownPending).
type State string

// The states.
const (
	StateStopped      State = "stopped"
	StateBlocked      State = "blocked"
	StateActivating   State = "activating"
	StateActive       State = "active"
	StateDeactivating State = "deactivating"
	StateFaulted      State = "faulted"
	StateReclaiming   State = "reclaiming"
)

// Source is where a plugin was discovered, which decides its trust rules
// and its place in load order (CC6, DC20, DC22).
type Source string

// The sources, by priority.
const (
	SourceProject Source = "project" // <workspace>/.crystal/plugins
	SourceDev     Source = "dev"     // Options.Dev: eligible without a grant
	SourceHome    Source = "home"    // {home}/plugins
	SourceBuiltin Source = "builtin" // Options.Builtin: bundled, still granted
)

// Blocker is one reason a plugin was not attempted, with the next step in
// words (it names no CLI command). Action names the Operator operation
// that clears it — ActionGrant or ActionEnable — or is "" when none does,
// so a front end offers its own command for it without parsing Remedy.
type Blocker struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Remedy  string `json:"remedy"`
	Action  Action `json:"action,omitempty"`
}

// Action is an Operator operation that clears a Blocker.
type Action string

// The actions of a Blocker.
const (
	ActionGrant  Action = "grant"  // Operator.Grant: trust the current content
	ActionEnable Action = "enable" // Operator.Enable: off the disabled list
)

// PluginInfo is one plugin as the host sees it now (Plugins, OpResult):
// its identity, lifecycle state and generation, content fingerprint and
// trust verdict, why it does not run, its diagnostics and its reclaim
// facts.
type PluginInfo struct {
	ID          string `json:"id"`
	Directory   string `json:"directory"`
	Source      Source `json:"source"`
	DisplayName string `json:"display_name"`
	Version     string `json:"version"`
	// Enabled is the manifest's enabled and the config's disabled list;
	// nil when the manifest could not be read.
	Enabled *bool `json:"enabled"`
	State   State `json:"state"`
	// Generation is the live generation's id, "" when none serves.
	Generation string `json:"generation"`
	// Fingerprint is the content's, "" until the bundle was read.
	Fingerprint string `json:"fingerprint"`
	// Trust is "dev" (eligible in-process), "trusted", "untrusted",
	// "modified", "unreadable" (the trust file), or "" before the bundle
	// was read.
	Trust string `json:"trust"`
	// Blockers say why a blocked plugin was not attempted.
	Blockers []Blocker `json:"blockers"`
	// StopReason says why a stopped plugin does not run when the operator
	// switched it off (PluginDisabled, MC5); nil otherwise.
	StopReason  *Blocker `json:"stop_reason,omitempty"`
	Diagnostics []Note   `json:"diagnostics"`
	// TeardownPending is set while a deactivated generation still has work
	// that ignored cancellation (DC26).
	TeardownPending bool `json:"teardown_pending,omitempty"`
	// LeakedGenerations counts this plugin's deactivated generations still
	// pinned in memory; RestartRecommended is the host-wide verdict of
	// Stats (DC27, MC9).
	LeakedGenerations  int  `json:"leaked_generations"`
	RestartRecommended bool `json:"restart_recommended"`
}

// EventKind says what an Event reports.
type EventKind string

// The kinds of Event.
const (
	EventActivated EventKind = "activated" // a first generation serves
	EventReloaded  EventKind = "reloaded"  // a new generation replaced the previous one
	EventKept      EventKind = "kept"      // a failed reload left the previous generation serving
	EventFaulted   EventKind = "faulted"   // the plugin failed with nothing to keep
	EventBlocked   EventKind = "blocked"   // trust, a dependency or the host version keeps it from running
	EventStopped   EventKind = "stopped"   // disabled, removed or the host closing
	EventUnchanged EventKind = "unchanged" // a reload found the same content
	// EventProvidersReloaded and EventProvidersKept report
	// {home}/providers.json: read again, or a bad edit kept the previous.
	EventProvidersReloaded EventKind = "providers-reloaded"
	EventProvidersKept     EventKind = "providers-kept"
)

// Event is one lifecycle change of a plugin (Options.Events), or of the
// providers file (Plugin empty).
type Event struct {
	Plugin     string
	Kind       EventKind
	Generation string
	State      State
	// Elapsed is how long the change took (activation, drain).
	Elapsed time.Duration
}
