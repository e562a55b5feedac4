// Package starhost is the embeddable plugin host: the one package an agent
// host imports. A Host discovers, admits, activates and attaches plugins,
// serves frozen tool snapshots whose proxies re-resolve on every call,
// expands slash commands, binds {{placeholders}}, and reports every plugin's
// state and diagnostics. Everything the crystal-star CLI shows is available
// here; the CLI has no private powers.
//
// Contract rules surfaced here: CC6 (catalog order), CC11 and DC8 (command
// resolution), CC12–CC13 (binding), DC4 (tool snapshots), DC27 (Close waits
// for teardown).
package starhost
