// Package builtins owns everything Starlark sees: the predeclared names
// (contribute, tool, command, placeholder, status_field, error, deps, json,
// struct and the contribution-point constructors), the ctx objects passed
// to callbacks, the one conversion between Starlark values and JSON, and
// the Activator that turns a bundle snapshot into a frozen generation.
//
// Activation compiles every module of the snapshot first (a syntax error
// runs no code), then executes the entry module once with a staging
// registrar from contrib as contribute()'s target. load() reads the same
// in-memory snapshot, never the disk, so what ran is exactly what was
// fingerprinted. When the top level returns, every value is frozen: a
// generation's contributions cannot change after it is published.
//
// wiring.go lists, in one place, every predeclared name, contribute()
// keyword, ctx field and attach-stage action; the feature files (status.go,
// data.go, models.go, points.go, ...) hold their behaviour.
//
// Every run — a top level and each callback — gets a fresh thread with a
// step budget, the callback timeout, the allocation guards of guard.go and
// the heap watchdog of watchdog.go; it is cancelled when its context ends,
// and a panic in any Go builtin becomes a diagnostic with the plugin's
// position, so plugin input never takes the host down. The same activator
// runs in a worker process when a plugin is isolated (builtins/worker).
//
// What has effects — session and review facts, model clients, data
// directories, the status line, timers, notes — reaches Starlark through
// the source interfaces the host implements (SessionSource, ModelSource,
// DataSource, StatusSource, ClockSource…); this package
// performs no I/O of its own apart from the confined data directories
// (os.Root). The rules it implements are listed with their tests in
// docs/contract.md.
package builtins
