package contrib

import (
	"fmt"
	"strings"
)

// Severity says whether a diagnostic stops something (error) or only informs
// (warning, note).
type Severity string

// Severities, from the most to the least serious.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNote    Severity = "note"
)

// Pos is a place in a plugin's source, relative to the plugin directory.
// The zero Pos means "no place".
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// IsValid reports whether p names a file.
func (p Pos) IsValid() bool { return p.File != "" }

// String formats p as file:line:col, leaving out the parts that are unknown.
func (p Pos) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Diagnostic is a note with a stable code, the plugin it concerns and, where
// there is one, the place in the plugin's source. Message is one English
// sentence; Remedy, when set, is the next step for the user.
type Diagnostic struct {
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	Plugin   string   `json:"plugin,omitempty"`
	Pos      Pos      `json:"pos"`
	Message  string   `json:"message"`
	Remedy   string   `json:"remedy,omitempty"`
	// Detail holds extra lines, such as a Starlark backtrace. Notes show
	// only the first line; `crystal-star plugins` shows all.
	Detail string `json:"detail,omitempty"`
	// Pointer is, for a ToolSchemaInvalid, the JSON Pointer into the
	// tool's schema of its first problem (SchemaError), by which check and
	// the running host place the note at the bad property.
	Pointer string `json:"pointer,omitempty"`
}

// Diag builds a diagnostic with the catalogue's severity for code.
func Diag(code Code, plugin string, pos Pos, format string, args ...any) Diagnostic {
	return Diagnostic{Code: code, Severity: code.Severity(), Plugin: plugin, Pos: pos,
		Message: fmt.Sprintf(format, args...)}
}

// WithRemedy returns d with its next step set.
func (d Diagnostic) WithRemedy(format string, args ...any) Diagnostic {
	d.Remedy = fmt.Sprintf(format, args...)
	return d
}

// String formats d as `file:line:col: severity: plugin: message [CODE]`,
// followed by "; remedy" when there is one, on one line.
func (d Diagnostic) String() string {
	var b strings.Builder
	if s := d.Pos.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	b.WriteString(string(d.Severity))
	b.WriteString(": ")
	if d.Plugin != "" {
		b.WriteString(d.Plugin)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	b.WriteString(" [")
	b.WriteString(string(d.Code))
	b.WriteString("]")
	if d.Remedy != "" {
		b.WriteString("; ")
		b.WriteString(d.Remedy)
	}
	return b.String()
}
