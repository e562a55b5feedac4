// Package toolsets runs the external tool sets of {home}/config.toml as MCP
// servers (MC7): each [tool_sets.NAME] is started with the MCP Go SDK's
// client — command = [...] over stdin/stdout, url = "..." over Streamable
// HTTP — its tools are reported to the host as external tools (CC6), a
// notifications/tools/list_changed from the server is a reload trigger
// (the host rebuilds the catalog and runs attach again, CC3), and a set
// that fails or dies is reported (ToolSetFailed) and restarted with
// backoff while its tools answer tool_unavailable.
//
// It uses the public starhost API only, as an embedder would: an embedder
// that brings its own MCP servers can use Start the same way.
package toolsets
