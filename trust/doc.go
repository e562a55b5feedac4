// Package trust answers one question: may this exact plugin content run?
//
// A Fingerprint is computed over a plugin bundle as a versioned,
// length-prefixed canonical stream: first the normalised declarations of
// plugin.toml, then every file of the bundle tree in a fixed order, so two
// bundles get the same fingerprint exactly when they would run the same
// code. A grant pairs a plugin id with one fingerprint; the trust file
// ({home}/plugin-trust.json) holds the grants of this machine (a File of
// Grants, read through a Store). It is never
// layered and never read from a workspace, so a repository cannot grant
// itself. A Verdict says whether the current bytes are trusted, untrusted
// (no grant for the id) or modified since the grant; revoking removes
// exactly one (id, fingerprint) pair.
//
// What a verdict means for a plugin's state — blocked, active, a dev
// plugin that needs no grant — is the lifecycle's decision; this package
// only answers the question. The trust file is written atomically under a
// cross-process lock (internal/safefile), so two terminals granting at once
// lose nothing. It imports the standard library and internal/safefile
// only. The rules it implements are listed with their tests in
// docs/contract.md.
package trust
