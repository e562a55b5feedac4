package format

import (
	"errors"
	"fmt"

	"github.com/bazelbuild/buildtools/build"
	"go.starlark.net/syntax"

	"github.com/crystal-star/crystal-star/builtins"
)

// Source returns src formatted the way buildifier formats a generic Starlark
// file (github.com/bazelbuild/buildtools/build): four-space indentation,
// `name = value` keyword arguments, double quotes, one element per line in
// lists that span lines, loads on top and sorted — what `crystal-star fmt`
// writes. name is used only in error positions. Formatting is idempotent:
// Source of its own output returns the same bytes.
//
// Source never returns text that the plugin dialect cannot parse when src
// could be parsed: buildifier's parser does not know while loops, so a file
// that uses one is refused with an error rather than mangled, and so is any
// output that would not parse again. It is safe for concurrent use.
func Source(name string, src []byte) ([]byte, error) {
	f, err := build.ParseDefault(name, src)
	if err != nil {
		_, serr := builtins.Dialect.Parse(name, src, 0)
		if serr == nil {
			return nil, fmt.Errorf("%s: the formatter cannot parse this file, which is valid Starlark (buildifier's parser has no while loops); it is left as is", formatErrorPos(name, err))
		}
		// The plugin dialect's error, at the place and in the words check
		// uses (buildifier says "syntax error near" and the next token,
		// often a newline, at the start of the next line).
		var se syntax.Error
		if errors.As(builtins.AtEndOfLine(src, serr), &se) {
			return nil, fmt.Errorf("%s: syntax error: %s", se.Pos, se.Msg)
		}
		return nil, serr
	}
	out := build.Format(f)
	if _, serr := builtins.Dialect.Parse(name, src, 0); serr == nil {
		if _, oerr := builtins.Dialect.Parse(name, out, 0); oerr != nil {
			return nil, fmt.Errorf("%s: formatting would make the file unparsable (%v); it is left as is", name, oerr)
		}
	}
	return out, nil
}

// formatErrorPos is the file:line:col of a buildtools parse error, or name.
func formatErrorPos(name string, err error) string {
	var pe build.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s:%d:%d", name, pe.Pos.Line, pe.Pos.LineRune)
	}
	return name
}
