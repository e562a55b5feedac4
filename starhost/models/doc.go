// Package models owns the host's model adapters and providers.json: the
// request, reply, message and facts types the adapters use, the Adapter
// interface (one built-in implementation per reserved protocol of CC8:
// openai, responses, deepseek, anthropic, gemini, ollama — one file each),
// the stable error codes every adapter reports, and the bounded HTTP
// client they share (timeouts, retry-after on 429).
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
