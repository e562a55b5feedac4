package mcpserve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crystal-star/crystal-star/starhost"
)

// Note sends a host note to every session as notifications/message, at the
// level its severity maps to: error → error, warning → warning, a print()
// line → debug, every other note → info. Each session gets only what is at
// or above the level it set with logging/setLevel, and nothing before it
// set one (the SDK's rule). Wire it as the host's notes receiver
// (starhost.Options.Notes) to forward plugin output. Safe for concurrent
// use; a session that cannot be written to is skipped.
func (s *Server) Note(n starhost.Note) {
	params := &mcp.LoggingMessageParams{Level: noteLevel(n), Logger: n.Plugin, Data: noteData(n)}
	for ss := range s.srv.Sessions() {
		_ = ss.Log(context.Background(), params)
	}
}

func noteLevel(n starhost.Note) mcp.LoggingLevel {
	switch {
	case n.Code == "Print": // print() in a plugin
		return "debug"
	case n.Severity == "error":
		return "error"
	case n.Severity == "warning":
		return "warning"
	}
	return "info"
}

// noteData is the structured payload of a note: what a host shows as
// "file:line:col: code: message", in fields.
func noteData(n starhost.Note) map[string]any {
	d := map[string]any{"code": string(n.Code), "message": n.Message, "text": n.String()}
	if n.Pos.File != "" {
		d["position"] = n.Pos.String()
	}
	if n.Remedy != "" {
		d["remedy"] = n.Remedy
	}
	return d
}
