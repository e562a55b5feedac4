// Package docs embeds the Starlark API reference (api.md) so that tools
// built from this module — the language server's hover — show the same
// text a reader of the documentation sees. The Markdown files are the
// documentation; this file only makes one of them reachable from Go.
package docs

import _ "embed"

// APIReference is docs/api.md, the Starlark API reference.
//
//go:embed api.md
var APIReference string
