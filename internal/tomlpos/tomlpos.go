// Package tomlpos finds where a key is written in a TOML document, for
// diagnostics: the TOML decoder gives the position of a syntax error only,
// not of a key it decoded or did not know.
package tomlpos

import (
	"slices"
	"strings"
)

// SplitKey splits a dotted key — as TOML writes it and as diagnostics
// print it, `plugins."acme.x".isolation` — into its parts, unquoting
// quoted ones.
func SplitKey(dotted string) []string {
	var parts []string
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(dotted); i++ {
		c := dotted[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			if c == '\\' && quote == '"' && i+1 < len(dotted) {
				i++
				c = dotted[i]
			}
			b.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(parts, strings.TrimSpace(b.String()))
}

// Position returns the 1-based line and column where key is assigned —
// under its [table] header, as a dotted key, or as a table header of its
// own — or 1, 1 when the document does not write it.
func Position(data []byte, key []string) (line, col int) {
	var table []string
	for i, text := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(text)
		at := func() (int, int) { return i + 1, strings.Index(text, trimmed) + 1 }
		if header, ok := strings.CutPrefix(trimmed, "["); ok {
			header = strings.TrimPrefix(header, "[")
			end := strings.Index(header, "]")
			if end < 0 {
				continue
			}
			table = SplitKey(header[:end])
			if hasPrefix(table, key) {
				return at()
			}
			continue
		}
		name, _, ok := strings.Cut(trimmed, "=")
		if !ok || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if hasPrefix(slices.Concat(table, SplitKey(name)), key) {
			return at()
		}
	}
	return 1, 1
}

// hasPrefix reports whether full starts with key.
func hasPrefix(full, key []string) bool {
	return len(full) >= len(key) && slices.Equal(full[:len(key)], key)
}
