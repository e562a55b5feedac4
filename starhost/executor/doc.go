// Package executor is the executor side of remote tools (DotCraft's
// [ToolRpc], docs/remote.md): `crystal-star executor --http ADDR` serves the
// remote = True tools of the plugin bundles hosts upload to it, over MCP
// Streamable HTTP, beside a small bundle endpoint, health and readiness
// probes and Prometheus metrics.
//
// An executor runs a bundle only when the bytes uploaded hash to the
// fingerprint they are named by, its own operator granted that exact
// fingerprint in the executor home's trust file, the caller presented the
// executor's bearer token (when it has one), and the plugin's remote tools
// need nothing an executor cannot give (the RemoteIneligible findings of
// check). Each bundle activates in a host of its own over the executor's
// home with tool services only: the home's data directories, ctx.store and
// ctx.env — no session, review, model clients or status sink, and none of
// the session-only attach stages. Every call carries a call id, recorded in
// {home}/executor/calls.log before it runs, so a call is never run twice,
// not even across a restart. On Shutdown it stops admitting calls and
// waits for those in flight.
package executor
