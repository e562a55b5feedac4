// Package lifecycle owns a plugin's life: discovery and overlay of plugin
// roots, plugin.toml, immutable bundle snapshots, states and generations,
// the activation transaction, deactivation, drain and reclaim, and the
// dependency graph with its compatibility lines. It calls a
// contrib.Activator and never touches Starlark.
//
// Contract rules implemented here: AT1 (stage, re-admit, publish in one
// step), AT2 (one published generation; a reload builds the next one while
// the previous serves and replaces it in one publication), AT3 (any failure
// of the next generation keeps the previous one serving; an unchanged
// fingerprint is a no-op),
// AT4 (discovery reads files only), CC3 (attach order), DC13–DC15
// (dependencies, exports, compatibility lines), DC23 (snapshots), DC24
// (states), DC25 (re-evaluation), DC26 and DC27 (deactivation, drain,
// teardown, reclaim).
package lifecycle
