// Package contrib owns the language-neutral side of plugin contributions.
// It knows nothing of Starlark and nothing of files: the builtins package
// turns Starlark calls into the types declared here, and the lifecycle
// package decides when a generation is published or withdrawn.
//
// A plugin's activation fills a Staging registrar. Each contribution —
// tool, command, placeholder, status field, point entry, hook — is checked
// there against the name rules of its kind (names.go) and against the other
// entries of the same plugin; what fails is left out with a Diagnostic, and
// the rest stays (a duplicate id is a finding, not a failure). Nothing a
// staging holds is visible to callers.
//
// The Registry publishes a whole generation in one step and withdraws it
// in one step. Readers take a View, an immutable value swapped atomically,
// so a lookup never waits for a reload and never sees half a plugin. A
// ToolSnapshot is what a caller holds for a turn: a frozen list of tool
// infos whose proxies re-resolve the tool's owner on every call, so a call
// after a reload runs on the new generation and a call on a withdrawn
// tool answers tool_unavailable instead of running retired code.
//
// Contribution points (points.go) are one table: each row says a point's
// tier, order, failure policy and scope, and the registry (pointreg.go,
// resolve.go) resolves them in that order, with replacement and takeover
// between plugins, and tells subscribers which points changed. Hooks
// (hooks.go) are a second table of events, payloads and verdicts.
//
// Diagnostics share one catalogue of codes with their severity, meaning and
// remedy (codes.go); every message a user sees is built from it. The rules
// these types implement are listed with their tests in docs/contract.md.
package contrib
