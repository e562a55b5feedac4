package starhost

import "github.com/crystal-star/crystal-star/contrib"

// Severity ranks a note: SeverityError (something does not work),
// SeverityWarning (it works, perhaps not as meant) or SeverityNote
// (information, print output).
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNote    Severity = "note"
)

// Position is a place in a plugin's source; Line and Col are 1-based, 0
// when unknown. The zero Position is no place.
type Position struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// IsValid reports whether p names a file.
func (p Position) IsValid() bool { return p.File != "" }

// String formats p as file:line:col, leaving out the parts that are
// unknown, or "" for no place.
func (p Position) String() string { return contrib.Pos(p).String() }

// Note is a session note or diagnostic delivered to the embedder
// (Options.Notes, PluginInfo.Diagnostics, check.Report): a stable Code
// (PascalCase, docs/diagnostics.md), the plugin it concerns, the place in
// its source where there is one, one English sentence and, for problems,
// the next step. A Note is an error, so a failure reported as one is found
// with errors.Is(err, starhost.Code("SyntaxError")).
type Note struct {
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	Plugin   string   `json:"plugin,omitempty"`
	Pos      Position `json:"pos"`
	Message  string   `json:"message"`
	// Remedy is the next step, in words; it names no CLI command.
	Remedy string `json:"remedy,omitempty"`
	// Detail holds extra lines, such as a Starlark backtrace.
	Detail string `json:"detail,omitempty"`
}

// String formats n on one line as `file:line:col: severity: plugin:
// message [Code]`, followed by "; remedy" when there is one; the position
// and plugin are left out when empty.
func (n Note) String() string { return diagOf(n).String() }

// Error returns String: a Note is an error.
func (n Note) Error() string { return n.String() }

// Unwrap returns the note's Code, for errors.Is.
func (n Note) Unwrap() error { return n.Code }
