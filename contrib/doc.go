// Package contrib owns the language-neutral side of plugin contributions: the
// contribution types (tools, commands, placeholders, status fields), the name
// rules of each kind, the one catalogue of diagnostic codes, the staging
// registrar that validates a plugin's contributions before they are
// published, and the Registry that publishes whole generations at once and
// serves frozen tool snapshots through proxies.
//
// It knows nothing of Starlark: the builtins package turns Starlark calls into
// the types declared here, and the lifecycle package decides when a staged set
// is published or revoked.
//
// Contract rules implemented here: CC2 (left-out entries become diagnostics),
// CC4–CC6 (tools, names, catalog order), CC11 and DC8 (commands), CC12
// (placeholder names, first in load order wins), DC4 (projection and proxies;
// revoked snapshots yield tool_unavailable), DC5 (duplicate ids inside a plugin
// are diagnostics, not failures) and DC6 (stable error codes; raised errors
// reach the model as tool_failed). The table of contribution points
// (points.go) and the registry's point rules (pointreg.go, resolve.go)
// implement DC1 (tiers, order, handles), DC2 (the catalog), DC3 (failure
// policies), DC9 (replacement and ReplaceConflict), DC10 (takeover), DC11
// (scopes, runtime entries) and DC12 (snapshots and invalidation); the hook
// table (hooks.go) implements HK1–HK3.
package contrib
