// Package models owns the host's model adapters and providers.json: the
// request, reply, message and facts types the adapters use, the Adapter
// interface and the registry of adapters, the stable error codes every
// adapter reports, and the bounded HTTP client they share (timeouts,
// retry-after on 429).
//
// The built-in adapters — one per reserved protocol of CC8 — live in
// packages of their own that register themselves when imported, as
// database/sql drivers do: starhost/models/openai, responses, deepseek,
// anthropic, gemini and ollama (starhost/models/builtin imports all six).
// This package and starhost link none of them, so an embedder links only
// the protocols it imports; all six speak their wire over net/http.
//
// starhost imports this package and keeps only the wiring (which client a
// plugin gets, redaction, reporting); this package never imports starhost.
// The message and request types are defined in contrib (and the facts in
// builtins) because the Starlark side needs them too and may import
// nothing above contrib; this package re-exports them under its own names.
//
// The API key of a provider is read from its api_key_env variable when a
// client is built and is handed only to the adapter's HTTP requests: it is
// never logged, printed or given to Starlark (CC9). See docs/models.md.
package models
