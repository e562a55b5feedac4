// Package builtins owns everything Starlark sees: the predeclared names
// (contribute, tool, command, placeholder, status_field, error, deps, json,
// struct), the ctx objects passed to callbacks, the one conversion between
// Starlark values and JSON, and the Activator that compiles a bundle
// snapshot, executes it with a staging registrar and freezes the result.
//
// Every run — a module's top level and each callback — gets a fresh thread
// with a step budget, is cancelled when its context ends, and recovers a
// panic in any Go builtin into a diagnostic, so plugin input never panics the
// host.
//
// Contract rules implemented here: CC1 (the surface), CC2 (contribute, None
// entries), CC7 (host facts on ctx, never the user's question), CC11
// (ctx.out), CC13 (placeholder resolve on every bind), DC6 (error(code,
// message) and tool_failed), DC13 (exports and deps.require during
// activation only), DC23 (modules and load() read the in-memory snapshot),
// AT1 (staging) and AT3 (compile errors before any code runs).
package builtins
