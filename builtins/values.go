package builtins

import (
	"errors"
	"fmt"

	"go.starlark.net/starlark"

	"github.com/crystal-star/crystal-star/contrib"
)

// entry is the Starlark value a constructor returns: an immutable record of
// one contribution and the file:line:col of the constructor call. contribute()
// turns entries into contrib values.
type entry struct {
	kind string // "tool", "command", ...
	name string
	pos  contrib.Pos

	// kind-specific fields
	tool        contrib.Tool
	command     contrib.Command
	placeholder contrib.Placeholder
	field       contrib.StatusField
	fn          starlark.Callable // run / resolve
	extra       any               // kind-specific data of kinds added by other files
}

var _ starlark.Value = (*entry)(nil)

func (e *entry) String() string        { return fmt.Sprintf("%s(name = %q)", e.kind, e.name) }
func (e *entry) Type() string          { return e.kind }
func (e *entry) Freeze()               {}
func (e *entry) Truth() starlark.Bool  { return starlark.True }
func (e *entry) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: %s", e.kind) }

// Attr exposes the entry's name so plugins can build lists of names.
func (e *entry) Attr(name string) (starlark.Value, error) {
	if name == "name" {
		return starlark.String(e.name), nil
	}
	return nil, nil
}

// AttrNames lists the entry's readable attributes.
func (e *entry) AttrNames() []string { return []string{"name"} }

// errorValue is what error(code, message) returns: an expected failure with a
// stable code (DC6).
type errorValue struct {
	code, message string
	pos           contrib.Pos // of the error(...) call, for notes (zero when the host made it)
}

var _ starlark.HasAttrs = (*errorValue)(nil)

func (e *errorValue) String() string        { return fmt.Sprintf("error(%q, %q)", e.code, e.message) }
func (e *errorValue) Type() string          { return "error" }
func (e *errorValue) Freeze()               {}
func (e *errorValue) Truth() starlark.Bool  { return starlark.False }
func (e *errorValue) Hash() (uint32, error) { return starlark.String(e.code).Hash() }

// Attr exposes code and message.
func (e *errorValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "code":
		return starlark.String(e.code), nil
	case "message":
		return starlark.String(e.message), nil
	}
	return nil, nil
}

// AttrNames lists code and message.
func (e *errorValue) AttrNames() []string { return []string{"code", "message"} }

// badCodeError is error(code, ...) with a code the host refuses: one it
// produces itself (contrib.ReservedCode, reserved) or one not shaped as a
// stable code. Unlike other uncaught errors, the caller is told why
// (failure), so the plugin's author sees it in the tool_failed message
// instead of "uncaught error".
type badCodeError struct {
	code     string
	why      string // follows "the code"
	reserved bool
}

func (e *badCodeError) Error() string {
	if e.reserved {
		return fmt.Sprintf("error(%q, ...): the code %q is reserved for the host; choose a code of your own", e.code, e.code)
	}
	return fmt.Sprintf("error(%q, ...): the code %s", e.code, e.why)
}

// checkErrorCode checks a stable error code: a lowercase letter, then
// lowercase letters, digits or "_", at most 64 characters. Its error is a
// reason to follow "the code".
func checkErrorCode(code string) error {
	if code == "" || len(code) > 64 || code[0] < 'a' || code[0] > 'z' {
		return errors.New("must start with a lowercase letter and be at most 64 characters")
	}
	for i := 1; i < len(code); i++ {
		c := code[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return errors.New("may contain only lowercase letters, digits and \"_\"")
		}
	}
	return nil
}
