// Package remote is the host side of remote tools (DotCraft's [ToolRpc],
// docs/remote.md): it packs a plugin bundle into one content-addressed
// archive named by its trust fingerprint (Pack, Open), and routes the calls
// of a plugin's remote = True tools to the executors of the home
// config.toml ([executors.NAME], [plugins."id"] execute = ...) over MCP
// Streamable HTTP, with the MCP client of starhost/toolsets.
//
// A host uploads a bundle an executor lacks, spreads calls over the
// executors a plugin names, retries a call on another executor only when it
// never started, and gives every call an id the executor records, so no call
// runs twice. Calls cross the wire as JSON only.
//
// Like starhost/toolsets, it uses the public starhost API: the CLI (or an
// embedder) wires it with Install, and starhost itself links no net/http.
package remote
