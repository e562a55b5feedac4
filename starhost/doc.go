// Package starhost is the embeddable plugin host: the one package an agent
// host imports. A Host discovers, admits, activates and attaches plugins,
// serves frozen tool snapshots whose proxies re-resolve on every call,
// expands slash commands, binds {{placeholders}}, and reports every plugin's
// state and diagnostics. Everything the crystal-star CLI shows is available
// here; the CLI has no private powers.
//
// Contract rules surfaced here: CC6 (catalog order), CC11 and DC8 (command
// resolution), CC12–CC13 (binding), DC4 (tool snapshots), DC27 (Close waits
// for teardown); and the host facts: providers.json (watched) and the
// model adapters of package models, CC8–CC9 (client factories over the host's HTTP; the API key never
// shown), CC10 (Classify), CC19 (ctx.env), CC20–CC22 (Session: SetModel,
// SetReview and the token rules), CC24–CC27 (model clients, ModelCalls) and
// CC29 (DataDirs); and the contribution points and hooks, each called at its
// moment of a turn: DC1–DC3 and DC9–DC12 (PointDefaults, AssemblePrompt,
// Tools, PrepareModelCall, Dispatch, the thread and turn methods,
// Resolve, Subscribe) and HK1–HK3 (RunHook and the stages the other
// methods run).
package starhost
