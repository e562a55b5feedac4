// Package trust owns the canonical fingerprint of a plugin bundle, the machine-local trust
// file, the grants it holds and the verdicts read from it. It implements rules DC17–DC22 of
// shared/CONTRACT.md: a plugin runs only when its exact (id, fingerprint) is granted (DC17,
// DC20); the fingerprint is a versioned, length-prefixed canonical stream over the normalised
// declarations and the bundle tree (DC18); the trust file lives at {home}/plugin-trust.json,
// is never layered and never read from a workspace (DC19); revocation removes exactly one
// pair (DC21). Deciding what a verdict means for a plugin's state (DC22) is the lifecycle's
// job; this package only answers the question.
//
// The trust file is written atomically under a cross-process lock (internal/safefile).
//
// It imports the standard library and internal/safefile only.
package trust
