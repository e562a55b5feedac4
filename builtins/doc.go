// Package builtins owns everything Starlark sees: the predeclared names
// (contribute, tool, command, placeholder, status_field, error, deps, json,
// struct), the ctx objects passed to callbacks, the one conversion between
// Starlark values and JSON, and the Activator that compiles a bundle
// snapshot, executes it with a staging registrar and freezes the result.
//
// wiring.go lists, in one place, every predeclared name, contribute()
// keyword, ctx field and attach-stage action; the feature files (status.go,
// data.go, models.go, points.go, ...) hold their behaviour.
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
// AT1 (staging) and AT3 (compile errors before any code runs); and the host
// facts: CC8–CC10 (client_factory with an opaque API key, classifier),
// CC19 (ctx.env), CC20–CC23 (the live ctx.session and ctx.review views),
// CC24–CC27 (ctx.models, its members and client lifetime) and CC29–CC30
// (attach_data_dirs and ctx.data confined with os.Root); and the
// contribution points: one constructor and contribute() keyword per row of
// contrib.Points with the TARGET_/ORDER_/SCOPE_ constants (DC1, DC2),
// ctx.thread and ctx.contributions for thread-scoped entries (DC11), and
// hook and raw_hook (HK1, HK3).
package builtins
