// Package lifecycle owns a plugin's life from its directory to its
// teardown. It calls a contrib.Activator and never touches Starlark.
//
// Discovery reads plugin roots (home, workspace, builtin, dev) and overlays
// them by id; it reads files only and runs nothing. A Candidate's bytes
// become an immutable bundle snapshot whose fingerprint trust checks, and
// plugin.toml gives its id, version, entry, dependencies and host version.
//
// The Manager keeps one published generation per plugin. A reload is
// make-before-break: the next generation is compiled, executed, checked
// against trust, dependencies and exports, and attached in staging while
// the previous one keeps serving; the switch is one publication in the
// registry. A call admitted before the switch finishes on the old
// generation, which then drains (calls in flight, within the cleanup
// timeout), runs its teardown and is reclaimed. Any failure of the next
// generation keeps the previous one serving with a kept event; only a
// plugin with nothing serving becomes faulted. An unchanged fingerprint is
// a no-op.
//
// Dependencies form a graph: a plugin activates after what it requires,
// stops before it, and re-evaluates when a dependency's compatibility line
// changes. Every change is reported as an Event with its generation and
// timing. The rules it implements are listed with their tests in
// docs/contract.md.
package lifecycle
